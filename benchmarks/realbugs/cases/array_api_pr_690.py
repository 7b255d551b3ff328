# source: https://github.com/data-apis/array-api/pull/690
# expect: JAX207
# line: 10
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 10
# batch: 3
import jax
import jax.numpy as jnp

def func(x):
    return jnp.repeat(x, x[2])

x = jnp.arange(3)
print(func(x))
print(jax.jit(func)(x))
