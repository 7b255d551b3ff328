"""JAX404: arrays in a pytree's metadata. Two instances with their own arrays: jit compares the
second call's metadata with the traced one's, and the comparison raises (REAL)."""
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass
class Grid:
    values: jax.Array
    nodes: np.ndarray


jax.tree_util.register_dataclass(Grid, data_fields=["values"], meta_fields=["nodes"])


@jax.jit
def total(grid):
    return jnp.sum(grid.values)


total(Grid(jnp.ones(4), np.linspace(0.0, 1.0, 4)))
total(Grid(jnp.ones(4), np.linspace(0.0, 1.0, 4)))  # REAL metadata: a second array compared
