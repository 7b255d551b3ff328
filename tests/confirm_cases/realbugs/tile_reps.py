"""jnp.tile with traced reps, under jit."""
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def tiled(a, reps):
    return jnp.tile(a, reps)  # REAL tile


tiled(np.ones([1, 2]), np.array([3, 1]))
