"""Not JAX404's error: the same pytree, one metadata array object shared by both calls (compared
by identity, so it never raises), and the flagged call fails for another reason, a ValueError
NumPy raises at that line: only JAX's metadata comparison is the predicted error."""
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass
class Grid:
    values: jax.Array
    nodes: np.ndarray


jax.tree_util.register_dataclass(Grid, data_fields=["values"], meta_fields=["nodes"])
NODES = np.linspace(0.0, 1.0, 4)


@jax.jit
def total(grid):
    return jnp.sum(grid.values)


total(Grid(jnp.ones(4), NODES))
total(Grid(jnp.ones(4), NODES.reshape(2, 3)))  # DECOY other-error: NumPy's ValueError, not JAX's
