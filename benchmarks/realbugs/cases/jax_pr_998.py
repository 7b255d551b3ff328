# source: https://github.com/jax-ml/jax/pull/998
# expect: JAX601
# line: 40
# observed: jax 0.10.2 CPU: `selu_jit(x)` on 1e6 elements times at 0.19 ms per call unblocked (line 40) against 1.74 ms with `.block_until_ready()` (line 43): timeit stops the clock when the call is dispatched, not when the result exists (the PR added `.block_until_ready()` to the notebook's timed cells "for accurate timing"); the `np.dot(x, x.T)` timings (lines 21, 25) are unblocked too
# batch: 15
# (the 2019 quickstart notebook as of the PR: its `%timeit` cells written with `timeit.timeit`, as the notebook's readers ran them outside IPython)
import timeit

import jax.numpy as np
import numpy as onp
from jax import grad, jit, vmap, random

key = random.PRNGKey(0)
x = random.normal(key, (10,))
print(x)

# Multiplying matrices
size = 3000
x = random.normal(key, (size, size), dtype=np.float32)
n = 5
t_dot = timeit.timeit(lambda: np.dot(x, x.T), number=n) / n
print("np.dot(x, x.T): %.4f s per call" % t_dot)

x = onp.random.normal(size=(size, size)).astype(onp.float32)
t_dot_onp = timeit.timeit(lambda: np.dot(x, x.T), number=n) / n
print("np.dot on a NumPy array: %.4f s per call" % t_dot_onp)


# Using jit to speed up functions
def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)


x = random.normal(key, (1000000,))
t_selu = timeit.timeit(lambda: selu(x), number=20) / 20
print("selu(x): %.6f s per call" % t_selu)

selu_jit = jit(selu)
selu_jit(x).block_until_ready()  # compile once
t_jit = timeit.timeit(lambda: selu_jit(x), number=20) / 20
print("selu_jit(x): %.6f s per call" % t_jit)

t_jit_blocked = timeit.timeit(lambda: selu_jit(x).block_until_ready(), number=20) / 20
print("selu_jit(x).block_until_ready(): %.6f s per call" % t_jit_blocked)
