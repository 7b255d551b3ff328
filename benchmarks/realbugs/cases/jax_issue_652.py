# source: https://github.com/jax-ml/jax/issues/652
# expect: JAX702
# line: 9
# observed: jax 0.10.2 CPU: UserWarning at line 9, and the array is float32
# batch: 4
import jax
import jax.numpy as np

A = np.array([[0, 1, 1],
              [1, 0, 1],
              [1, 1, 0]], dtype=np.float64)

print(A.dtype)
lu, pivots, perm = jax.lax.linalg.lu(A)
print(lu.dtype)
