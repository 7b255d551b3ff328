"""timeit of a jitted call without waiting for its result (REAL), and with
block_until_ready (DECOY): the program's own timings."""
import timeit

import jax
import jax.numpy as jnp


@jax.jit
def heavy(x):
    for _ in range(10):
        x = jnp.tanh(x @ x) / x.shape[0]
    return x


x = jnp.ones((400, 400))
heavy(x).block_until_ready()
unwaited = timeit.timeit(lambda: heavy(x), number=10)  # REAL unwaited
waited = timeit.timeit(lambda: heavy(x).block_until_ready(), number=10)  # DECOY waited
