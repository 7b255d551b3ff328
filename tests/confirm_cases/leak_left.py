"""Tracers the program's own run leaves in an object's attribute, through jitted methods with
`self` static on an instance whose constructor needs arguments (confirm cannot build `self`;
it reads the program's `trainer` after the import)."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


class Trainer:
    def __init__(self, n):
        self.params = jnp.ones(n)

    @partial(jax.jit, static_argnums=0)
    def reset(self, x):
        self.params = np.zeros(3)  # DECOY a NumPy array: no tracer stored
        return x

    @partial(jax.jit, static_argnums=0)
    def step(self, x):
        self.params = self.params * x  # REAL the traced product stored in self
        return x


trainer = Trainer(3)
trainer.reset(jnp.ones(3))
trainer.step(jnp.ones(3))
