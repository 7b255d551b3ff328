# source: https://github.com/jax-ml/jax/issues/4474
# expect: JAX601
# line: 18
# observed: jax 0.10.2 CPU: "Jax took 0.024 seconds" (dispatch only); 0.105 s with block_until_ready on the same run setup
# batch: 1
import time

import jax.numpy as jnp
import numpy as np

size = 2000
a = np.random.rand(size, size).astype(np.float32)
b = np.random.rand(size, size).astype(np.float32)
a_j, b_j = jnp.asarray(a), jnp.asarray(b)

start = time.time()
c = jnp.dot(a_j, b_j)
print(f"Jax took {time.time() - start:.3f} seconds")

start = time.time()
c_np = np.dot(a, b)
print(f"Numpy took {time.time() - start:.3f} seconds")
