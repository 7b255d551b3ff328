# source: https://github.com/google/flax/issues/112
# expect: JAX102
# line: 25
# observed: jax 0.10.2 CPU: rnd() prints the same pair ([2 2 6 5 1], [8 9 4 8 2]) in all 5 iterations: make_rng's split of the global stack's key runs once, at trace time, and the split key it stores is a tracer, so the draws are baked into the compiled function
# batch: 8
import contextlib

import jax

_PRNG_STACK = []


@contextlib.contextmanager
def stochastic(rng):
    _PRNG_STACK.append(rng)
    try:
        yield
    finally:
        _PRNG_STACK.pop()


def make_rng():
    if not _PRNG_STACK:
        raise ValueError("make_rng needs to be called in a stochastic context")
    _PRNG_STACK[-1], rng = jax.random.split(_PRNG_STACK[-1])
    return rng


@jax.jit
def rnd():
    return (jax.random.randint(make_rng(), (5,), 0, 10),
            jax.random.randint(make_rng(), (5,), 0, 10))


with stochastic(jax.random.PRNGKey(0)):
    for _ in range(5):
        print(rnd())
