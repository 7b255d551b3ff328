"""Timers whose clock is read with JAX work still computing (tests/test_confirm_timing_share.py):
confirmed only when that work is a real share of what the timer measured."""
import time
import timeit

import jax
import jax.numpy as jnp


@jax.jit
def poly(x):
    return 3.0 * x ** 2 + 2.0 * x + 1.0


small = jnp.ones((3, 10_000))
poly(small).block_until_ready()
for _ in range(20):
    t2 = time.time()
    out = poly(small)
    t3 = time.time()  # DECOY tiny: microseconds of work, if any, still computing
print(f"jitted: {t3 - t2:.6f} s")

a = jnp.ones((1000, 1000))
huge = jnp.ones((3000, 3000))
jnp.dot(a, a).block_until_ready()
jnp.dot(huge, huge).block_until_ready()
begin = time.perf_counter()
jnp.dot(huge, huge).block_until_ready()  # 27 times the work of the product below, waited for
last = jnp.dot(a, a)  # still computing at the clock: a few percent of what it measured
took = time.perf_counter() - begin  # DECOY share
print(f"two products: {took:.3f} s")

start = time.perf_counter()
product = jnp.dot(a, a)
elapsed = time.perf_counter() - start  # REAL: the product takes far longer than its dispatch
print(f"dot: {elapsed:.6f} s")

per_call = timeit.timeit(lambda: poly(small), number=20)  # DECOY tiny lambda
per_dot = timeit.timeit(lambda: jnp.dot(a, a), number=3)  # REAL lambda
print(per_call, per_dot)
