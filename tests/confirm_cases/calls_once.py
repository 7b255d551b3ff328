"""Trace-time values and prints in functions the program calls once and twice. One call cannot
show a later call reusing the traced value or skipping the print: each DECOY must not be
confirmed by a recipe that calls the function more often than the program. Each REAL line is
called twice by the program, which is enough to show it."""
import jax
import numpy as np

ONCE = iter([float(i) for i in range(20)])
TWICE = iter([float(i) for i in range(20)])
CALLS_ONCE = 0
CALLS_TWICE = 0


@jax.jit
def step_once(w):
    return w + next(ONCE)  # DECOY iterator-once: the program calls it once


@jax.jit
def noise_once(x):
    return x + np.random.normal()  # DECOY random-once: the program calls it once


@jax.jit
def shape_once(x):
    print("shape", x.shape)  # DECOY print-once: the program calls it once; no tracer printed
    return x + 1


@jax.jit
def step_twice(w):
    return w + next(TWICE)  # REAL iterator-twice: the second call reuses the first batch


@jax.jit
def noise_twice(x):
    return x + np.random.normal()  # REAL random-twice: the second call reuses the first draw


@jax.jit
def shape_twice(x):
    print("shape", x.shape)  # REAL print-twice: the second call prints nothing
    return x + 1


@jax.jit
def count_once(x):
    global CALLS_ONCE
    CALLS_ONCE += 1  # DECOY counter-once: moved by the one call the program made
    return x + 1


@jax.jit
def count_twice(x):
    global CALLS_TWICE
    CALLS_TWICE += 1  # REAL counter-twice: moved by the first call only
    return x + 1


step_once(0.0)
count_once(0.0)
noise_once(0.0)
shape_once(np.zeros(3, np.float32))
for _ in range(2):
    step_twice(0.0)
    noise_twice(0.0)
    shape_twice(np.zeros(3, np.float32))
    count_twice(0.0)
