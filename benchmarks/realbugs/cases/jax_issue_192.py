# source: https://github.com/jax-ml/jax/issues/192
# expect: JAX501
# line: 10
# observed: jax 0.10.2 CPU: vals1 == vals2 == 0.947667
# batch: 4
import jax

key = jax.random.key(0)
vals1 = jax.random.uniform(key)
vals2 = jax.random.uniform(key)  # reused!
print(vals1, vals2)
