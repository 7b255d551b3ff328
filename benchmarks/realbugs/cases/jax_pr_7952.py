# source: https://github.com/jax-ml/jax/pull/7952
# expect: JAX203
# line: 12
# observed: jax 0.10.2 CPU: TracerIntegerConversionError at line 12
# batch: 1
import jax
import jax.numpy as jnp


@jax.jit
def h(x, y):
    return jnp.sum(x, axis=(y,))


print(h(jnp.ones((2, 3)), 0))
