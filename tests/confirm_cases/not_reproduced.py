"""Flagged lines that JAX runs without the pitfall: confirm mode must say "not reproduced"."""
import jax
import jax.numpy as jnp

OFFSET = 1.0
SEEN = []


@jax.jit
def safe(x):
    return jnp.where(x > 0, x, 0.0)


@jax.jit
def debug_ok(x):
    jax.debug.print("x is {}", x)
    return x * 2


@jax.jit
def offset_unused(x):
    return x + 0 * OFFSET


@jax.jit
def shapes_only(x):
    SEEN.append(x.shape)
    return x + 1


@jax.jit
def sum_list(x):
    vals = jnp.arange(4.0)

    def body(i, acc):
        return acc + vals[i] * x

    return jax.lax.fori_loop(0, 4, body, 0.0)


def scale(x, factor):
    return x * factor


scale_jit = jax.jit(scale, static_argnums=1)


def same_static(x):
    for i in range(3):
        x = scale_jit(x, 2.0)
    return x


def split_ok(key):
    k1, k2 = jax.random.split(key)
    a = jax.random.normal(k1, (3,))
    b = jax.random.normal(k2, (3,))
    return a + b
