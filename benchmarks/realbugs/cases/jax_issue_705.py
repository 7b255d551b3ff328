# source: https://github.com/jax-ml/jax/issues/705
# expect: JAX804
# line: 17
# observed: jax 0.10.2 CPU: ValueError at line 17
# batch: 1
import jax.numpy as np
import numpy as onp
from jax import vmap


def h(a, b):
    return np.sum(a) + np.sum(b)


X = onp.random.randn(10, 4)
U = onp.random.randn(10, 2)
print(vmap(h, in_axes=(0, 1))(X, U))
