# source: https://github.com/jax-ml/jax/issues/24406
# expect: JAX804
# line: 14
# observed: jax 0.10.2 CPU: ValueError at line 14
# batch: 1
import jax
import jax.numpy as jnp


def f(x1, x2, a3):
    return jnp.add(x1, x2) * a3


print(jax.vmap(f)(jnp.ones(2), a3=jnp.ones(1), x2=jnp.ones(2)))
