# source: https://github.com/jax-ml/jax/issues/3038
# expect: JAX208
# line: 10
# observed: jax 0.10.2 CPU: TypeError at line 10
# batch: 2
import jax.numpy as jnp

x = [jnp.ones((), dtype=jnp.float32), jnp.ones((), dtype=jnp.float32)]
print(jnp.sum(jnp.array(x)))
print(jnp.mean(x))
