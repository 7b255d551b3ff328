# source: https://github.com/jax-ml/jax/issues/10493
# expect: JAX203
# line: 13
# observed: jax 0.10.2 CPU: line 12 runs; ConcretizationTypeError at line 13 (the axis of jnp.sum is a vmapped tracer)
# batch: 7
from jax import vmap
import jax.numpy as jnp

x = jnp.ones((3, 2, 2))
y = jnp.array([[0, 1]] * 3)

print(jnp.sum(x[0], y[0]))
print(vmap(lambda x, y: jnp.sum(x, y))(x, y))
