# source: https://github.com/jax-ml/jax/pull/13849
# expect: JAX804
# line: 11
# observed: jax 0.10.2 CPU: ValueError at line 17
# batch: 3
from functools import partial

import jax


@partial(jax.vmap, in_axes=(0, 0))
def f(x, y):
    return x + y


x = y = jax.numpy.arange(4)
print(f(x, y=y))
