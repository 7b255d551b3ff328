"""JAX801-JAX806 (transform usage): each case is linted and compared with its
`# expect:` markers in both directions; the silent cases are patterns of real code
(has_aux pairs, conditional returns, decorators, partial, methods, rebinding).

Each flagged case also runs under JAX, and must raise the error the rule names.
"""

from __future__ import annotations

import textwrap

import pytest

from jaxlint.linter import expected_findings, lint_string

HEADER = """\
import jax
import jax.numpy as jnp
import numpy as np
from functools import partial
"""

CASES = {
    # JAX801 ---------------------------------------------------------------
    "grad-of-pair-without-aux": ("TypeError", """
        def loss_fn(w):
            out = (jnp.sum(w ** 2), w)
            return out

        jax.grad(loss_fn)(jnp.ones(3))  # expect: JAX801
        """),
    "bound-method-tuple": ("TypeError", """
        class Model:
            def loss(self, w):
                return jnp.sum(w), {"w": w}

            def grads(self, w):
                return jax.value_and_grad(self.loss)(w)  # expect: JAX801

        Model().grads(jnp.ones(3))
        """),
    "silent-801": (None, """
        def loss_fn(w):
            return jnp.sum(w ** 2), w

        def maybe_aux(w, aux=False):
            if aux:
                return jnp.sum(w), w
            return jnp.sum(w)

        def decorate(f):
            return lambda w: f(w)[0]

        @decorate
        def wrapped(w):
            return jnp.sum(w), w

        jax.grad(loss_fn, has_aux=True)(jnp.ones(3))
        jax.value_and_grad(partial(loss_fn), argnums=0, has_aux=True)(jnp.ones(3))
        jax.grad(maybe_aux)(jnp.ones(3))
        jax.grad(wrapped)(jnp.ones(3))
        jax.jacrev(loss_fn)(jnp.ones(3))
        flag = True
        jax.grad(loss_fn, has_aux=flag)(jnp.ones(3))
        """),
    # JAX802 ---------------------------------------------------------------
    "aux-single": ("TypeError", """
        @partial(jax.value_and_grad, has_aux=True)  # expect: JAX802
        def loss_fn(w):
            loss = jnp.mean(w ** 2)
            return loss

        loss_fn(jnp.ones(3))
        """),
    "silent-802": (None, """
        def helper(w):
            return jnp.sum(w), w

        def loss_fn(w):
            return helper(w)

        def nested(w):
            return jnp.sum(w), (w, {"a": w})

        jax.grad(loss_fn, has_aux=True)(jnp.ones(3))
        jax.grad(nested, has_aux=True)(jnp.ones(3))
        jax.grad(lambda w: [jnp.sum(w), w], has_aux=True)(jnp.ones(3))
        """),
    # JAX803 ---------------------------------------------------------------
    "argnums-kwonly": ("TypeError", """
        def loss(w, *, x):
            return jnp.sum(w * x)

        jax.grad(loss, argnums=1)(jnp.ones(3), x=jnp.ones(3))  # expect: JAX803
        """),
    "argnums-static-one-finding": ("ValueError", """
        @partial(jax.jit, static_argnums=1)
        def f(x, n, y):
            return x * n + y

        jax.grad(f, argnums=(1, 2))(1.0, 2.0, 3.0)  # expect: JAX803
        """),
    # A test that expects the error: the ValueError is raised and caught (checked by
    # test_behaviour_under_jax), and nothing is reported inside the `with`.
    "expected-error-in-test": (None, """
        import pytest

        def add(x, y):
            return x + y

        with pytest.raises(ValueError):
            jax.vmap(add, in_axes=(0, 0, 0))(jnp.ones(3), jnp.ones(3))
        """),
    "silent-803": (None, """
        def loss(w, x, scale=1.0):
            return jnp.sum(w * x) * scale

        def star(*args):
            return jnp.sum(args[0] * args[1])

        jax.grad(loss, argnums=(0, 1))(jnp.ones(3), jnp.ones(3))
        jax.grad(loss, argnums=2)(jnp.ones(3), jnp.ones(3), 2.0)
        jax.grad(star, argnums=1)(jnp.ones(3), jnp.ones(3))
        jax.jacfwd(loss, argnums=-2)(jnp.ones(3), jnp.ones(3))
        """),
    # JAX804 ---------------------------------------------------------------
    "in-axes-call-count": ("ValueError", """
        def scale(x, factor=2.0):
            return x * factor

        batched = jax.vmap(scale, in_axes=(0, None))  # expect: JAX804
        batched(jnp.ones((4, 3)))
        """),
    "in-axes-rank": ("ValueError", """
        xs = jnp.ones((4, 3))
        jax.vmap(lambda a, b: a + b, in_axes=(0, 2))(xs, xs)  # expect: JAX804
        """),
    "silent-804": (None, """
        def scale(x, factor=2.0):
            return x * factor

        def pair(x):
            return x, x

        xs = jnp.ones((4, 3))
        jax.vmap(scale, in_axes=(0,))(xs)
        jax.vmap(scale, in_axes=(0, None))(xs, 3.0)
        jax.vmap(scale, in_axes=(1, None))(xs, 3.0)
        jax.vmap(scale, in_axes=(-1, None))(xs, 3.0)
        jax.vmap(scale)(xs, xs)
        jax.vmap(pair, out_axes=(0, 1))(xs)
        jax.vmap(pair, out_axes=0)(xs)
        """),
    # JAX805 ---------------------------------------------------------------
    "donated-in-loop": ("ValueError", """
        step = jax.jit(lambda p, g: p - g, donate_argnums=0)
        params = jnp.ones(3)
        for _ in range(2):
            new = step(params, jnp.ones(3))  # expect: JAX805
        """),
    "donated-dict-read": ("RuntimeError", """
        @partial(jax.jit, donate_argnums=0)
        def update(params, g):
            return jax.tree.map(lambda p: p - g, params)

        params = jax.device_put({"w": jnp.ones(3)})
        new_params = update(params, 0.1)
        print(params["w"] + 1)  # expect: JAX805
        """),
    "silent-805": (None, """
        @partial(jax.jit, donate_argnums=0)
        def update(params, g):
            return params - g

        state = jnp.ones(3)
        for _ in range(3):
            state = update(state, 0.1)
        host = np.ones(3, np.float32)
        out = update(host, 0.1)
        print(host)
        kept = jnp.ones(3)
        new = update(kept, 0.1)
        print(kept.shape, kept.dtype, len(kept), kept is None)
        kept = new
        print(kept)

        def train(params, batch):
            new_params = update(params, batch)
            return params  # unknown: a parameter may be a NumPy array
        """),
    # JAX806 ---------------------------------------------------------------
    "unpack-three-from-aux": ("ValueError", """
        def loss_fn(w):
            return jnp.sum(w ** 2), {"w": w}

        loss, aux, grads = jax.value_and_grad(loss_fn, has_aux=True)(jnp.ones(3))  # expect: JAX806
        """),
    "output-fails-first": ("TypeError", """
        def loss_fn(w):
            return {"loss": jnp.sum(w ** 2)}

        # The call raises JAX802's TypeError before any unpacking: JAX806 stays silent.
        loss, aux, grads = jax.value_and_grad(loss_fn, has_aux=True)(jnp.ones(3))  # expect: JAX802
        """),
}


def _code(body: str) -> str:
    return HEADER + "\n" + textwrap.dedent(body).lstrip("\n")


@pytest.mark.parametrize("name", sorted(CASES))
def test_findings_match_markers(name):
    code = _code(CASES[name][1])
    found = {(f.line, f.code) for f in lint_string(code, path=f"{name}.py", select=["JAX"])}
    assert found == expected_findings(code)


@pytest.mark.parametrize("name", sorted(CASES))
def test_behaviour_under_jax(name):
    pytest.importorskip("jax")
    error, body = CASES[name]
    code = _code(body)
    namespace = {"__name__": f"transform_case_{name.replace('-', '_')}"}
    if error is None:
        exec(compile(code, name, "exec"), namespace)
        return
    with pytest.raises(Exception) as info:
        exec(compile(code, name, "exec"), namespace)
    assert error in [c.__name__ for c in type(info.value).__mro__], repr(info.value)
