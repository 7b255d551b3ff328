# source: https://github.com/scipy/scipy/issues/22781
# expect: JAX201
# line: 14
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 14
# batch: 3
import jax
import jax.numpy as jp


@jax.jit
def fn2():
    arr = jp.ones([2], dtype=jp.bool)
    i = 0
    while arr.any():
        arr = arr.at[i].set(0)
        i += 1
    return arr


print(fn2())
