# source: https://github.com/google-deepmind/jaxline/issues/15
# expect: JAX904
# line: 14
# observed: jax 0.10.2 CPU: AttributeError at line 14
# batch: 3
import jax
import jax.numpy as jnp
import numpy as np


def get_first(xs):
    """Gets values from the first device."""
    return jax.tree_util.tree_map(
        lambda x: x[0] if isinstance(x, (np.ndarray, jnp.DeviceArray)) else x, xs)


print(get_first({"loss": jnp.ones((1, 3)), "step": 3}))
