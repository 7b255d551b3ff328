"""Findings that cannot be run, each for a different reason."""
from typing import NamedTuple

import jax
import jax.numpy as jnp


class Params(NamedTuple):
    w: jax.Array


@jax.jit
def pytree_param(params: Params, x):
    if params.w > 0:  # case: pytree
        return x
    return -x


@jax.jit
def flag_off(x, flag=False):
    if flag:
        if x > 0:  # case: never-ran
            return x
    return x


class NeedsArgs:
    def __init__(self, config: dict):
        self.config = config["size"]

    @jax.jit
    def __call__(self, x):
        if x > 0:  # case: self
            return x
        return x


def factory():
    @jax.jit
    def inner(x):
        if x > 0:  # case: nested
            return x
        return x
    return inner
