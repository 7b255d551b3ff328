"""Clock readings passed to a jitted function (JAX702): the seconds since 1970 arrive as float32,
which holds them only to 128 s; the seconds since a start fit."""
import time

import jax


@jax.jit
def since(t, t0):
    return t - t0


t0 = time.time()
t = time.time()
print(since(t, t0))  # REAL clock: both readings arrive rounded to 128 s
print(since(t - t0, 0.0))  # DECOY clock: the time since the start, a few microseconds
