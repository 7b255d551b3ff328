# source: https://github.com/scverse/pertpy/issues/687
# expect: JAX902
# line: 8
# observed: jax 0.10.2 CPU: ModuleNotFoundError at line 8
# batch: 1
import jax.numpy as jnp
import numpy as np
from jax.config import config

config.update("jax_enable_x64", True)


def compositional_mean(counts):
    proportions = counts / jnp.sum(counts, axis=1, keepdims=True)
    return jnp.mean(proportions, axis=0)


print(compositional_mean(np.ones((3, 4))))
