"""A Pallas-style kernel the program never calls: its `*_ref` parameters are Refs where it is
launched, so a plain call with invented arrays would stage the immutability error."""

import jax.numpy as jnp


def add_one_kernel(x_ref, o_ref):  # launched from another module
    o_ref[...] = x_ref[...] + 1.0  # DECOY ref write


total = jnp.ones(3).sum()
