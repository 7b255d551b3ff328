# source: https://github.com/liesel-devs/liesel/issues/104
# expect: JAX904
# line: 11
# observed: jax 0.10.2 CPU: AttributeError at line 11
# batch: 3
from typing import Union

import jax.numpy as jnp
import numpy as np

Array = Union[np.ndarray, jnp.DeviceArray]


def log_prob(position: dict, scale: float) -> Array:
    return -0.5 * sum(jnp.sum((v / scale) ** 2) for v in position.values())


print(log_prob({"beta": jnp.ones(3)}, 2.0))
