# source: https://github.com/jax-ml/jax/issues/4585
# expect: JAX206
# line: 12
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 12
# batch: 2
import jax.numpy as jnp
from jax import jit


def argmax_location(a):
    # the location of the unique maximum, via the one-argument where
    return jnp.where(a == jnp.max(a))


print(jit(argmax_location)(jnp.arange(3)))
