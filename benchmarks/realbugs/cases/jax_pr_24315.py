# source: https://github.com/jax-ml/jax/pull/24315
# expect: JAX301
# line: 9
# observed: jax 0.10.2 CPU: TypeError at line 9
# batch: 1
import jax

x = jax.numpy.arange(4)
x[0] = 1
print(x)
