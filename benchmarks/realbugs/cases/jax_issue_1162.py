# source: https://github.com/jax-ml/jax/issues/1162
# expect: JAX204
# line: 12
# observed: jax 0.10.2 CPU: TracerArrayConversionError at line 12
# batch: 3
import numpy as np
from jax import vmap

a = np.array([[1, 2, 3]]).transpose()
m1 = np.array([[1, 1, 1], [2, 2, 2]])

vv = lambda x, y: np.vdot(x, y)
mv = vmap(vv, (0, None), 0)
mm = vmap(mv, (None, 1), 1)

print(mm(m1, a))
