# source: https://github.com/jax-ml/jax/issues/553
# expect: JAX204
# line: 12
# observed: jax 0.10.2 CPU: TracerArrayConversionError at line 12
# batch: 7
import numpy as onp
import jax.numpy as np
from jax import jit


def fun(x):
    r = onp.arange(x.shape[0])[x]
    return r


print(jit(fun)(np.array([0, 1, 2], dtype=np.int32)))
