# source: https://github.com/jax-ml/jax/issues/470
# expect: JAX702
# line: 8
# observed: jax 0.10.2 CPU: UserWarning at line 8, and the array is float32
# batch: 4
from jax import random

x = random.uniform(random.PRNGKey(0), (1000,), dtype="float64")
print(x.dtype)  # float32
