"""Impurity: trace-time print, stale globals, leaked tracers, iterators."""
import jax
import jax.numpy as jnp

SCALE = 2.0
SEEN = []
LEAKED = []


@jax.jit
def noisy(x):
    print("x is", x)
    return x * 2


@jax.jit
def debug_ok(x):
    jax.debug.print("x is {}", x)
    return x * 2


@jax.jit
def scaled(x):
    return x * SCALE


@jax.jit
def leaky(x):
    y = x + 1
    LEAKED.append(y)
    return y


@jax.jit
def shapes_only(x):
    SEEN.append(x.shape)
    return x + 1


@jax.jit
def sum_iter(x):
    it = iter(range(4))

    def body(i, acc):
        return acc + next(it) * x

    return jax.lax.fori_loop(0, 4, body, 0.0)


def set_scale(v):
    global SCALE
    SCALE = v


def retune(x):
    before = scaled(x)
    set_scale(3.0)
    return before, scaled(x)  # still SCALE = 2.0: the jitted scaled keeps its trace
