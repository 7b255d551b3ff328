# source: https://github.com/jax-ml/jax/issues/365
# expect: JAX208
# line: 7
# observed: jax 0.10.2 CPU: TypeError at line 7
# batch: 2
import jax.numpy as jnp
print(jnp.sin([0.2, 0.4]))
