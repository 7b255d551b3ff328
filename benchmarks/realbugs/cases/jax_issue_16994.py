# source: https://github.com/jax-ml/jax/issues/16994
# expect: JAX207
# line: 13
# observed: jax 0.10.2 CPU: TypeError at line 13
# batch: 3
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def foo_jit(a, b):
    return jnp.tile(a, b)


a = np.ones([1, 20, 20])
b = np.array([64, 1, 1])
c_jit = foo_jit(a, b)
print(c_jit.shape)
