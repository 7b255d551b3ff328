"""JAX301-JAX303: in-place updates of JAX arrays, checked against real JAX."""

from __future__ import annotations

import textwrap

import pytest

from jaxlint.linter import lint_string

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def codes(src: str, select=("JAX30",)) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_string(textwrap.dedent(src), select=list(select))]


def messages(src: str) -> list[str]:
    return [f.message for f in lint_string(textwrap.dedent(src), select=["JAX30"])]


# JAX's behaviour ---------------------------------------------------------------

@pytest.mark.parametrize("stmt", ["x[0] = 1.0", "x[0] += 1.0", "x[:, 1] *= 2.0"])
def test_item_assignment_raises_type_error_eagerly(stmt):
    x = jnp.zeros((2, 2))
    with pytest.raises(TypeError, match="immutable"):
        exec(stmt, {"x": x})


def test_item_assignment_raises_type_error_under_jit():
    def f(x):
        x[0] = 1.0
        return x
    with pytest.raises(TypeError, match="immutable"):
        jax.jit(f)(jnp.zeros(3))


@pytest.mark.parametrize("method", ["add", "subtract", "multiply", "divide", "power"])
def test_augmented_methods_exist_and_match_the_operator(method):
    import operator
    op = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
          "divide": operator.truediv, "power": operator.pow}[method]
    x = jnp.arange(1.0, 4.0)
    got = getattr(x.at[1], method)(2.0)
    assert float(got[1]) == op(2.0, 2.0)
    assert float(x[1]) == 2.0  # the original is unchanged


def test_discarded_at_update_has_no_effect():
    x = jnp.zeros(3)
    x.at[0].set(1.0)
    assert x.tolist() == [0.0, 0.0, 0.0]


def test_jax_ops_has_no_index_update():
    import jax.ops
    for name in ("index_update", "index_add", "index_mul", "index_min", "index_max", "index"):
        assert not hasattr(jax.ops, name)
    with pytest.raises(ImportError):
        exec("from jax.ops import index_update", {})


# JAX301 ------------------------------------------------------------------------

def test_flags_concrete_and_traced_arrays():
    src = """
    import jax
    import jax.numpy as jnp

    x = jnp.zeros(3)
    x[0] = 1
    k = jax.random.split(jax.random.PRNGKey(0))
    k[0] += 1

    @jax.jit
    def f(y, i):
        y[:, i] = 0
        return y

    def g(z: jax.Array):
        z[0] -= 1
    """
    assert codes(src) == [(6, "JAX301"), (8, "JAX301"), (12, "JAX301"), (16, "JAX301")]


def test_message_gives_the_at_replacement():
    src = """
    import jax.numpy as jnp
    x = jnp.zeros(3)
    x[1] = 5
    x[2] -= 1
    x[0] //= 2
    """
    msgs = messages(src)
    assert "`x = x.at[1].set(5)`" in msgs[0] and "TypeError" in msgs[0]
    assert "`x = x.at[2].subtract(1)`" in msgs[1]
    assert "`x = x.at[0].set(x[0] // 2)`" in msgs[2]


def test_under_jit_is_named():
    src = """
    import jax
    @jax.jit
    def f(x):
        x[..., 0] = 1.0
        return x
    """
    assert "under jit" in messages(src)[0]


def test_silent_on_numpy_dicts_lists_and_unknowns():
    src = """
    import jax
    import jax.numpy as jnp
    import numpy as np

    buf = np.zeros(3)
    buf[0] = 1
    x = jnp.zeros(3)
    x = x.at[0].set(1)
    d = {}
    d["w"] = x
    host = np.asarray(x)
    host[0] = 2

    @jax.jit
    def step(params, layers, g):
        params["w"] = params["w"] - g
        layers[0] = layers[0] * 2
        return params, layers

    def unknown(obj, i):
        obj[i] = 1
    """
    assert codes(src) == []


def test_branch_joining_numpy_and_jax_is_silent():
    src = """
    import jax.numpy as jnp
    import numpy as np
    def f(flag):
        a = jnp.zeros(3) if flag else np.zeros(3)
        if flag:
            b = jnp.zeros(3)
        else:
            b = np.zeros(3)
        b[0] = 1
    """
    assert codes(src) == []


# JAX302 ------------------------------------------------------------------------

def test_flags_discarded_at_updates():
    src = """
    import jax
    import jax.numpy as jnp
    x = jnp.zeros(3)
    x.at[0].set(1.0)
    x.at[1:].add(2.0)
    y = x.at[0].max(3.0)

    @jax.jit
    def f(x):
        x.at[0].multiply(2.0)
        return x.at[1].divide(2.0)
    """
    assert codes(src) == [(5, "JAX302"), (6, "JAX302"), (11, "JAX302")]
    assert "x = x.at[0].set(1.0)" in messages(src)[0]


def test_discarded_at_update_silent_in_notebook_cells():
    src = "import jax.numpy as jnp\nx = jnp.zeros(3)\nx.at[0].set(1.0)\n"
    assert [f.code for f in lint_string(src, path="nb.ipynb", select=["JAX302"])] == []


# JAX303 ------------------------------------------------------------------------

def test_flags_removed_index_functions_through_imports():
    src = """
    import jax
    import jax.ops as ops
    from jax.ops import index_update
    from jax.ops import segment_sum
    import jax.numpy as jnp
    x = jnp.zeros(3)
    y = ops.index_max(x, ops.index[0], 1.0)
    """
    assert codes(src) == [(4, "JAX303"), (8, "JAX303"), (8, "JAX303")]
    assert "JAX 0.3.2" in messages(src)[0]


def test_index_update_guarded_by_try_is_silent():
    src = """
    import jax
    try:
        from jax.ops import index_update
    except ImportError:
        index_update = None
    """
    assert codes(src) == []
