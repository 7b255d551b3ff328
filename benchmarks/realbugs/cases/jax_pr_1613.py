# source: https://github.com/jax-ml/jax/pull/1613
# expect: JAX804
# line: 11
# observed: jax 0.10.2 CPU: ValueError at line 11
# batch: 4
import numpy as onp
from jax import vmap

X = onp.random.randn(10, 4)
U = onp.random.randn(10, 2)
vmap(lambda x, y, z: None, (0, 1, 0))(X, U, X)
