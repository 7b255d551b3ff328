# source: https://github.com/jax-ml/jax/pull/5853
# expect: JAX203
# line: 10
# observed: jax 0.10.2 CPU: TracerIntegerConversionError at line 10
# batch: 1
import jax

choices = [1, 2, 3]

pick = jax.jit(lambda i: choices[i])
print(pick(0))
