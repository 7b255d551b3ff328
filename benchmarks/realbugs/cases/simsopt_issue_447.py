# source: https://github.com/hiddenSymmetries/simsopt/issues/447
# expect: JAX902
# line: 7
# observed: jax 0.10.2 CPU: ModuleNotFoundError at line 7
# batch: 1
import jax.numpy as jnp
from jax.config import config

config.update("jax_enable_x64", True)


def curve_length(gamma):
    return jnp.sum(jnp.linalg.norm(jnp.diff(gamma, axis=0), axis=1))


print(curve_length(jnp.ones((4, 3))))
