# source: https://github.com/jax-ml/jax/issues/10193
# expect: JAX804
# line: 14
# observed: jax 0.10.2 CPU: ValueError at line 14
# batch: 3
import jax
import jax.numpy as jnp


@jax.vmap
def f(x, y):
    return x + y

f(jnp.array([1]), y=jnp.array([1, 2]))
