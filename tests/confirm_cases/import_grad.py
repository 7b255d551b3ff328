"""Module-level code: grad of a function with a tuple output raises, while importing, the
TypeError that JAX801 predicts at the flagged line."""
import jax
import jax.numpy as jnp


def loss(w, x):
    return jnp.sum(w * x), w


jax.grad(loss)(jnp.ones(3), jnp.ones(3))  # REAL: Gradient only defined for scalar-output functions
