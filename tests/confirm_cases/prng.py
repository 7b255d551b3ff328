"""PRNG key reuse."""
import jax
import jax.numpy as jnp


def reuse(key):
    a = jax.random.normal(key, (3,))
    b = jax.random.normal(key, (3,))
    return a + b


def split_ok(key):
    k1, k2 = jax.random.split(key)
    a = jax.random.normal(k1, (3,))
    b = jax.random.normal(k2, (3,))
    return a + b


def loop_reuse(key, n):
    out = []
    for _ in range(n):
        out.append(jax.random.uniform(key))
    return out
