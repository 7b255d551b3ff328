# source: https://github.com/jax-ml/jax/issues/1007
# expect: JAX209
# line: 12
# observed: jax 0.10.2 CPU: IndexError at line 12
# batch: 2
import jax
import jax.numpy as np


@jax.jit
def sum_first_k(a, k):
    return np.sum(a[:k])


print(sum_first_k(np.arange(3.0), 2))
