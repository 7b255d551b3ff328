"""Module-level code: the flagged line raises a TypeError while importing, but not the one
JAX801 predicts (an argument is missing): the class alone is not evidence."""
import jax
import jax.numpy as jnp


def loss(w, x):
    return jnp.sum(w * x), w


jax.grad(loss)(jnp.ones(3))  # DECOY: missing argument, also a TypeError
