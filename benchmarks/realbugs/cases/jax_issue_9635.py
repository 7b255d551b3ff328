# source: https://github.com/jax-ml/jax/issues/9635
# expect: JAX805
# line: 16
# observed: jax 0.10.2 CPU: JaxRuntimeError at line 16
# batch: 2
import jax
import jax.numpy as jnp


def add(x, y):
    return x + y


f = jax.jit(add, donate_argnums=(0,))
x = jnp.zeros((10,), jnp.float32)
print(f(x, x))
