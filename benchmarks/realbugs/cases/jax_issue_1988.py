# source: https://github.com/jax-ml/jax/issues/1988
# expect: JAX601
# line: 21
# observed: jax 0.10.2 CPU: first timeit loop reported 0.09 ms per call (dispatch only) then ~26 ms once the queue filled; 13-15 ms per call with block_until_ready
# batch: 1
import timeit

import jax.numpy as np
from jax import jit


def foo(x):
    for _ in range(10):
        x = np.tanh(x @ x) / x.shape[0]
    return x


foo_jit = jit(foo)
foo_jit(np.ones((500, 500)))  # compile first
for i in range(3):
    t = timeit.timeit(lambda: foo_jit(np.ones((500, 500))), number=10)
    print(f"{t / 10 * 1e3:.2f} ms per loop")
