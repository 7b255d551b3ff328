"""Recompilation and jit overhead, run as the code is written."""
import functools

import jax
import jax.numpy as jnp


def g(x):
    return x * 2 + 1


def scale(x, factor):
    return x * factor


scale_jit = jax.jit(scale, static_argnums=1)


def fresh_lambda(x):
    for _ in range(3):
        x = jax.jit(lambda v: v + 1)(x)
    return x


def rewrap_module_fn(x):
    for _ in range(20):  # a step loop: a handful of re-wraps is not reported
        x = jax.jit(g)(x)
    return x


def changing_static(x):
    for i in range(3):
        x = scale_jit(x, 0.5 + i)
    return x


def same_static(x):
    for i in range(3):
        x = scale_jit(x, 2.0)
    return x


def warm_then_vary(x):
    for width in (1, 2, 4):
        scale_jit(x, width)
    for n in range(1, 4):
        x = scale_jit(x, 2 ** n)  # widths 2 and 4 are cached already, 8 is new
    return x


def warm_only(x):
    for width in (1, 2):
        scale_jit(x, width)
    for _ in range(2):
        x = scale_jit(x, 2)  # served from the cache warmed above: never compiles here
    return x


COUNT = 0


@jax.jit
def counted(x):
    global COUNT
    COUNT += 1
    return x + 1


# The program runs its loops (confirm counts what they do) and calls `counted` three times.
fresh_lambda(jnp.ones(3))
for _ in range(3):
    counted(1.0)
