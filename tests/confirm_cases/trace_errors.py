"""Trace-time errors: each flagged line raises under jit."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def relu_if(x):
    if x > 0:
        return x
    return 0.0 * x


@partial(jax.jit, static_argnums=1)
def repeat(x, n):
    for _ in range(n):  # n is static: fine
        x = x + 1
    return x


def count_up(x, n):
    total = x
    for i in range(n):
        total = total + i
    return total


count_up_jit = jax.jit(count_up)


@jax.jit
def to_numpy(x):
    return np.asarray(x) + 1


@jax.jit
def negatives(x):
    return x[x < 0]


@jax.jit
def zeros_like_n(n):
    return jnp.zeros(n)


@jax.jit
def safe(x):
    return jnp.where(x > 0, x, 0.0)


@jax.jit
def rows(x):
    if x.shape[0] > 2:
        return x[0]
    return x


class Model:
    def __init__(self, scale=2.0):
        self.scale = scale

    @partial(jax.jit, static_argnums=0)
    def __call__(self, x):
        if x.sum() > 0:
            return x * self.scale
        return x


def outer(xs):
    def body(carry, x):
        if x > 0:
            carry = carry + x
        return carry, x
    return jax.lax.scan(body, 0.0, xs)


outer_jit = jax.jit(outer)


def predict(params, x):
    return x @ params["w"] + params["b"]


@jax.jit
def clipped_step(params, x):
    loss = jnp.sum(predict(params, x))
    if loss > 1.0:  # a pytree parameter: keys from the subscripts in predict
        loss = loss / 2
    return loss


if __name__ == "__main__":
    raise SystemExit("never runs under confirm mode")
