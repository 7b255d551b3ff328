# source: https://github.com/jax-ml/jax/issues/15761
# expect: JAX405, JAX601
# line: 29
# observed: jax 0.10.2 CPU: some_func compiled 3 times (lengths 5, 8, 10; JAX_LOG_COMPILES); timings 223, 280, 336 ms then 0.0 ms, without block_until_ready
# batch: 4
import time

import jax
import jax.numpy as jnp


# A dummy function
@jax.jit
def some_func(vec, indices):
    out = jnp.zeros(len(indices))
    for idx, j in enumerate(indices):
        out_j = vec[j]
        out = out.at[idx].set(out_j)
    return out


timings = []
x = jnp.ones(20)
for n_indices in [5, 8, 10, 10, 10]:
    # make a list of indices
    li = jnp.arange(n_indices)
    # time the execution of function
    start = time.perf_counter()
    some_func(x, li)
    end = time.perf_counter()
    timings.append(end - start)
print([f"{t * 1e3:.1f} ms" for t in timings])
