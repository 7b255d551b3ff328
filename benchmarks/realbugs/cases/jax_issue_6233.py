# source: https://github.com/jax-ml/jax/issues/6233
# expect: JAX404
# line: 19
# observed: jax 0.10.2 CPU: TypeError at line 19
# batch: 3
import jax.numpy as jnp
from jax import jit


def f(x):
    return jnp.arange(-x, x)


f_jit = jit(f, static_argnums=0)

x_int = int(5)
arange_jit = f_jit(x_int)
x_device_array = jnp.add(4, 1)
arange_jit = f_jit(x_device_array)
print(arange_jit)
