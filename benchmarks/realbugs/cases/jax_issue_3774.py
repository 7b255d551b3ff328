# source: https://github.com/jax-ml/jax/issues/3774
# expect: JAX703
# line: 18
# observed: jax 0.10.2 CPU: no error: x.take(jnp.array([4]), axis=0) on the 3x3 array returns [[-2147483648 -2147483648 -2147483648]] (out-of-bounds filled), where NumPy raises IndexError
# batch: 7
import numpy as np
import jax.numpy as jnp

x = np.array(
  [[1, 2, 3],
   [4, 5, 6],
   [7, 8, 9]])
# numpy: IndexError: index 4 is out of bounds for size 3
x = jnp.array(
  [[1, 2, 3],
   [4, 5, 6],
   [7, 8, 9]])
print(x.take(jnp.array([4]), axis=0))  # [4] in the report; a list is refused now
