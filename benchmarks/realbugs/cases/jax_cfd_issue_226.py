# source: https://github.com/google/jax-cfd/issues/226
# expect: JAX904
# line: 12
# observed: jax 0.10.2 CPU: AttributeError at line 12
# batch: 3
import dataclasses

import jax.numpy as jnp

Array = jnp.ndarray
PyTree = object
Tensor = jnp.DeviceArray


@dataclasses.dataclass
class GridArray:
    data: Tensor
    offset: tuple

    def shift(self, k):
        return GridArray(jnp.roll(self.data, k), self.offset)


print(GridArray(jnp.arange(4.0), (0.5,)).shift(1).data)
