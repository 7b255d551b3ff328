# source: https://github.com/jax-ml/jax/issues/11012
# expect: JAX702
# observed: jax 0.10.2 CPU: masked_fill gives bfloat16, float16, float32 and then float32 again for the jnp.float64 inputs, and the float64 value 1 + 2**-40 comes back as 1.0: without x64 the float64 NumPy arrays are truncated to float32 when jnp.where takes them
# batch: 8
import jax.numpy as jnp
import numpy as np

mask = np.array(True)


def masked_fill(values, fill_value, mask):
    return jnp.where(mask, values, fill_value)


for dtype in [jnp.bfloat16, jnp.float16, jnp.float32, jnp.float64]:
    a = np.ones((2, 2), dtype=dtype)
    b = np.array(np.nan, dtype=dtype)
    print(dtype.__name__, masked_fill(a, b, mask).dtype)

a = np.full((2, 2), 1 + 2**-40, dtype=jnp.float64)
print(repr(float(masked_fill(a, np.array(np.nan, dtype=jnp.float64), mask)[0, 0])))
