# source: https://github.com/jax-ml/jax/pull/4412
# expect: JAX203
# line: 9
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 9 (the axis argument of jnp.sum is traced)
# batch: 7
import jax.numpy as jnp
from jax import jit

print(jit(jnp.sum)(jnp.arange(4), 0))
