# source: https://github.com/jax-ml/jax/pull/22098
# expect: JAX201
# line: 10
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 10
# batch: 4
import jax

@jax.jit
def f(qiaoqiao):
  if True and qiaoqiao:
    return 1
  return 0

f(True)
