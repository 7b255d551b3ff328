# source: https://github.com/jax-ml/jax/pull/4661
# expect: JAX404
# line: 17
# observed: jax 0.10.2 CPU: TypeError at line 17
# batch: 1
from functools import partial

import jax
import numpy as np


@partial(jax.jit, static_argnums=(1,))
def f(x, weights):
    return x * weights.sum()


print(f(1.0, np.arange(3.0)))
