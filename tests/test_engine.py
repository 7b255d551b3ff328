"""The engine: names through imports, traced functions and static arguments, the value lattice.

Each case is real code parsed by libcst; the assertion is the set of (line, code) found.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from jaxlint.engine import FileModel
from jaxlint.linter import lint_string


def found(code, select=("JAX2",)):
    return sorted((f.line, f.code) for f in lint_string(textwrap.dedent(code), select=select))


def model(code):
    return FileModel.build(cst.parse_module(textwrap.dedent(code)))


# --------------------------------------------------------------- name resolution
@pytest.mark.parametrize("imports,deco", [
    ("import jax", "jax.jit"),
    ("import jax as j", "j.jit"),
    ("from jax import jit", "jit"),
    ("from jax import jit as J", "J"),
    ("import jax.numpy as jnp\nimport jax", "jax.jit"),
    ("from jax import numpy as jnp, lax, jit, vmap", "vmap"),
    ("from functools import partial\nimport jax", "partial(jax.jit, static_argnames='k')"),
    ("import functools, jax", "functools.partial(jax.jit, static_argnums=(1,))"),
    ("import jax", "jax.jit(donate_argnums=0)"),
    ("import jax", "jax.pmap"),
    ("import jax", "jax.checkpoint"),
    ("import jax", "jax.remat"),
])
def test_decorator_forms_make_a_function_traced(imports, deco):
    code = f"{imports}\n\n@{deco}\ndef f(x, k):\n    if x > 0:\n        return x\n    return -x\n"
    assert found(code) == [(imports.count("\n") + 5, "JAX201")]


def test_a_local_jit_is_not_jax():
    assert found("""
        import jax

        def jit(f):
            return f

        @jit
        def f(x):
            if x > 0:
                return x
    """) == []


def test_import_inside_function_is_resolved():
    assert found("""
        def make():
            import jax

            @jax.jit
            def f(x):
                return x if x else 0
            return f
    """) == [(7, "JAX201")]


def test_qualname_through_aliases():
    m = model("""
        import jax.numpy as jnp
        from jax import lax as L
        import numpy as np
        a = jnp.sum
        b = L.scan
        c = np.asarray
        d = print
    """)
    values = [stmt.body[0].value for stmt in m.module.body[3:]]
    assert [m.qualname(v) for v in values] == [
        "jax.numpy.sum", "jax.lax.scan", "numpy.asarray", "builtins.print"]


# ------------------------------------------------------- transforms and wrappers
def test_wrapping_calls():
    assert found("""
        import jax

        def f(x, n):
            if n > 0:
                return x
            return x

        f_jit = jax.jit(f, static_argnums=1)
        g = jax.jit(jax.grad(lambda x: x if x > 0 else 0.0))
        h = jax.vmap(lambda x: x if x > 0 else 0.0, in_axes=0)
        jax.jit(lambda x: x if x else 0)(1.0)
    """) == [(10, "JAX201"), (11, "JAX201"), (12, "JAX201")]


def test_grad_alone_keeps_values_concrete_but_jit_of_grad_does_not():
    assert found("""
        import jax

        def f(x):
            if x > 0:
                return x ** 2
            return -x

        df = jax.grad(f)
        h = jax.hessian(f)
        vg = jax.value_and_grad(f)
    """) == []
    assert found("""
        import jax

        def f(x):
            if x > 0:
                return x ** 2
            return -x

        df = jax.jit(jax.grad(f))
    """) == [(5, "JAX201")]


def test_grad_inside_a_jitted_function_is_abstract():
    assert found("""
        import jax

        def loss(x):
            return x if x > 0 else -x

        @jax.jit
        def step(x):
            return jax.grad(loss)(x)
    """) == [(5, "JAX201")]


@pytest.mark.parametrize("call,line", [
    ("lax.scan(body, 0.0, xs)", 5),
    ("lax.fori_loop(0, 3, lambda i, c: body(c, i)[0], 0.0)", 5),
    ("lax.while_loop(lambda c: c < 3, lambda c: body(c, c)[0], 0.0)", 5),
    ("lax.cond(True, lambda c: body(c, c)[0], lambda c: c, 0.0)", 5),
    ("lax.switch(0, [lambda c: body(c, c)[0], lambda c: c], 0.0)", 5),
    ("lax.map(lambda x: body(x, x)[0], xs)", 5),
])
def test_lax_bodies_are_traced(call, line):
    assert found(f"""
        from jax import lax

        def body(c, x):
            c = c if x else c + 1
            return c, x

        xs = None
        {call}
    """) == [(line, "JAX201")]


def test_lambda_body_in_fori_loop():
    assert found("""
        from jax import lax
        lax.fori_loop(0, 10, lambda i, x: x + 1 if i > 2 else x, 0.0)
    """) == [(3, "JAX201")]


def test_helpers_and_methods_are_traced():
    assert found("""
        import jax
        import jax.numpy as jnp

        def helper(a, n):
            if n > 2:          # n is a literal at the call site: static
                pass
            if a.sum() > 0:
                return a
            return -a

        class Block:
            def __init__(self, x, width):
                if width > 3:  # static
                    pass
                self.ok = x if x.mean() > 0 else -x

            def apply(self, y):
                if y.sum() > 0:
                    return y
                return -y

            @jax.jit
            def __call__(self, y):
                return self.apply(y)

        @jax.jit
        def f(x):
            Block(x, 4)
            return helper(x, 3)
    """) == [(8, "JAX201"), (16, "JAX201"), (19, "JAX201")]


def test_extra_transforms_from_config():
    from jaxlint.config import Settings

    code = textwrap.dedent("""
        import equinox as eqx

        @eqx.filter_jit
        def f(x):
            return x if x > 0 else -x
    """)
    assert lint_string(code, select=["JAX2"]) == []
    settings = Settings(extend_transforms=(("equinox.filter_jit", "jit"),))
    assert [(f.line, f.code) for f in lint_string(code, settings=settings, select=["JAX2"])] == [(6, "JAX201")]


# ----------------------------------------------------------- static arguments
@pytest.mark.parametrize("deco", [
    "partial(jax.jit, static_argnums=1)",
    "partial(jax.jit, static_argnums=(1,))",
    "partial(jax.jit, static_argnums=-1)",
    "partial(jax.jit, static_argnames='n')",
    "partial(jax.jit, static_argnames=('n',))",
    "jax.jit(static_argnames=['n'])",
])
def test_static_arguments_are_static(deco):
    assert found(f"""
        import jax
        from functools import partial

        @{deco}
        def f(x, n):
            if n > 0:
                return x
            for _ in range(n):
                x = x + 1
            return jax.numpy.zeros(n)
    """) == []


@pytest.mark.parametrize("cond", [
    "x.ndim == 2", "x.shape[0] > 1", "len(x) > 2", "isinstance(x, tuple)", "mask is not None",
    "x.dtype == jnp.float32", "hasattr(x, 'shape')", "callable(mask)", "x.size > 3",
    "x.shape[0] * 2 > 3", "type(x) is float", "'w' in params",
])
def test_static_conditions_are_silent(cond):
    assert found(f"""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, mask=None, params=None):
            if {cond}:
                return x
            for i in range(x.shape[0]):
                x = x + i
            return x
    """) == []


def test_unknown_is_never_reported_as_traced():
    assert found("""
        import jax
        import some_library

        @jax.jit
        def f(x):
            y = some_library.compute(x)
            if y:
                return x
            for layer in some_library.layers:
                if layer.enabled:
                    x = layer(x)
            return x
    """) == []


def test_pytree_keys_are_static_values_traced():
    assert found("""
        import jax

        @jax.jit
        def f(params):
            out = 0.0
            for name, value in params.items():
                if name == "bias":
                    continue
                if value.sum() > 0:
                    out = out + value
            return out
    """) == [(10, "JAX201")]


def test_nothing_outside_traced_functions():
    assert found("""
        import jax.numpy as jnp
        import numpy as np

        def f(x):
            if x > 0:
                print(int(x), x.item(), np.asarray(x), x[x > 0], jnp.zeros(x))
            for i in range(x):
                pass
    """, select=("JAX",)) == []


def test_propagation_through_assignments_and_branches():
    assert found("""
        import jax

        @jax.jit
        def f(x, flag=False):
            y = 1.0
            if flag:
                y = x * 2
            z = y          # traced on one path, a Python float on the other
            a, b = x, 3
            if b > 2:      # b is a literal
                pass
            while z > 0:   # not definite: f(x) runs, with z = 1.0
                z = z - 1
            return a if a else b
    """) == [(15, "JAX201")]


def test_vmap_in_axes_none_is_not_traced():
    assert found("""
        import jax

        def f(x, n):
            if n > 0:
                return x
            return -x

        g = jax.vmap(f, (0, None))
        h = jax.vmap(f, in_axes=(0, None))
    """) == []


_PASSED_THROUGH = """
import jax
import jax.numpy as jnp


def f(x, n):
    if n["w"] > 0:
        return x
    return -x


out = {call}
"""


# An argument is concrete in `f` only if every transform on the way passes it through.
@pytest.mark.parametrize("call,traced", [
    ('jax.vmap(f, in_axes=(0, None))(jnp.ones(3), {"w": 1.0})', False),
    ('jax.vmap(f, in_axes=[0, None])(jnp.ones(3), {"w": 1.0})', False),
    ('jax.vmap(f, in_axes=(0, {"w": None}))(jnp.ones(3), {"w": 1.0})', False),
    ('jax.vmap(jax.grad(f), in_axes=(0, None))(jnp.ones(3), {"w": 1.0})', False),
    ('jax.vmap(jax.vmap(f, in_axes=(0, None)), in_axes=(0, None))(jnp.ones((2, 3)), {"w": 1.0})', False),
    ('jax.vmap(jax.vmap(f, in_axes=(0, None)), in_axes=(0, 0))(jnp.ones((2, 3)), {"w": jnp.ones(2)})', True),
    ('jax.jit(jax.vmap(f, in_axes=(0, None)))(jnp.ones(3), {"w": 1.0})', True),
    ('jax.vmap(jax.jit(f), in_axes=(0, None))(jnp.ones(3), {"w": 1.0})', True),
    ('jax.vmap(f, in_axes=(0, {"w": 0}))(jnp.ones(3), {"w": jnp.ones(3)})', True),
])
def test_vmap_passes_through_only_what_every_transform_passes(call, traced):
    import jax

    code = _PASSED_THROUGH.format(call=call)
    try:
        exec(compile(code, "<case>", "exec"), {})
        raised = False
    except jax.errors.TracerBoolConversionError:
        raised = True
    assert raised == traced  # jax 0.10.2 on the CPU
    assert (found(code) == [(7, "JAX201")]) == traced


def test_merged_dict_of_mapped_and_unmapped_parts_is_not_traced_by_key():
    assert found("""
        import jax
        import numpy as np

        def moving(actions, **kwargs):
            return np.abs(actions[:, 0]) > 0.01

        def per_sample(multi, single):
            kwargs = {**multi, **single}
            return moving(**kwargs)

        def metrics(multi, single):
            return jax.vmap(per_sample, in_axes=(1, None), out_axes=1)(multi, single)
    """) == []


def test_unresolved_static_argnums_claims_nothing():
    assert found("""
        import jax
        from functools import partial
        STATIC = (1,)

        @partial(jax.jit, static_argnums=STATIC)
        def f(x, mode):
            if mode == "a":
                return x
            return -x
    """) == []


def test_model_records_contexts():
    m = model("""
        import jax
        from functools import partial

        @partial(jax.jit, static_argnames=("n",))
        def f(x, n):
            return x

        def g(x):
            return x

        gg = jax.vmap(jax.grad(g))
    """)
    f, g = m.functions
    assert f.abstract and f.cached and f.static_params == {"n"}
    assert g.abstract and not g.cached
    assert [c.transforms for c in g.contexts.values()] == [("vmap", "grad")]


def test_shape_helpers_are_static():
    # numpyro-style shape arithmetic: broadcast_shapes returns a Python tuple.
    assert found("""
        import jax
        import jax.numpy as jnp
        from jax import lax
        from functools import partial

        @partial(jax.jit, static_argnums=(2,))
        def f(p, n, shape):
            shape = shape or lax.broadcast_shapes(jnp.shape(p), jnp.shape(n))
            p = jnp.reshape(jnp.broadcast_to(p, shape), -1)
            return jnp.broadcast_to(n, jnp.broadcast_shapes(jnp.shape(n), (3,)))
    """) == []


def test_partial_with_splatted_kwargs_claims_nothing():
    # Which parameters `**kwargs` binds is unknown, so none is claimed traced.
    assert found("""
        import functools
        import jax

        def kernel(x, *, config):
            if config.tile > 2:
                return x
            return -x

        def build(**kwargs):
            return jax.jit(functools.partial(kernel, **kwargs))
    """) == []


def test_syntax_newer_than_the_interpreter_is_parsed_by_libcst():
    # PEP 695 (Python 3.12): the pre-check with an older interpreter's grammar must
    # not turn a file libcst parses into E999.
    code = textwrap.dedent("""
        import jax

        type Vec = list[float]

        @jax.jit
        def f(x):
            if x > 0:
                return x
            return -x
    """)
    result = lint_string(code, select=["JAX"])
    assert [(f.line, f.code) for f in result] == [(8, "JAX201")]


def test_a_real_syntax_error_keeps_pythons_message():
    from jaxlint.config import Settings
    from jaxlint.linter import lint_text

    result = lint_text("import jax\ndef f(:\n    pass\n", "m.py", Settings())
    assert [(d.code, d.line) for d in result.diagnostics] == [("E999", 2)]
    assert "SyntaxError" in result.diagnostics[0].message


def test_chunked_parse_of_long_files_round_trips_and_finds_the_same(monkeypatch):
    # Long files are parsed in pieces split at top-level statements: the module's
    # code is the file byte for byte, and the findings are those of a whole parse.
    import jaxlint.source as source

    path = Path(__file__).resolve().parent.parent / "fixtures" / "prng_training.py"
    text = path.read_text(encoding="utf-8")
    whole = [(f.line, f.col, f.code) for f in lint_string(text, path=str(path), select=["JAX"])]
    monkeypatch.setattr(source, "CHUNKED_PARSE_LINES", 10)
    pieces = []
    real = source._parse_chunked
    monkeypatch.setattr(source, "_parse_chunked", lambda t, tree: pieces.append(1) or real(t, tree))
    module = source.parse_source(text, str(path))
    assert pieces, "the long file was not parsed in pieces"
    assert module.code == text
    assert len(module.body) > 3
    chunked = [(f.line, f.col, f.code) for f in lint_string(text, path=str(path), select=["JAX"])]
    assert chunked == whole and whole


def test_stated_lengths_through_attributes_parameters_and_comprehensions():
    from jaxlint.engine.constants import stated_int, stated_length

    m = model("""
        class Solver:
            def __init__(self, n, names):
                self.n = n
                self.names = names

            def axes(self, params):
                return (0,) * self.n + (None,) * len(params) + (0,)

        s = Solver(n=2, names=[])
        ys = [1 for name in s.names]
        grown = []
        grown.append(1)
        s.axes([0.5, 2.0, 3.0])
    """)
    values = {m.module.code_for_node(n.targets[0].target): n.value for n in m.nodes(cst.Assign)}
    ret = next(iter(m.nodes(cst.Return))).value
    assert stated_length(m, ret) == 2 + 3 + 1
    assert stated_int(m, ret.left.left.right) == 2  # `self.n`: every Solver(...) passes 2
    assert stated_length(m, values["ys"]) == 0  # a comprehension over `s.names`, given []
    names = [n for n in m.nodes(cst.Name)]
    grown = next(n for n in names if n.value == "grown")
    assert stated_length(m, grown) is None  # resized by append: the literal's length is not read
