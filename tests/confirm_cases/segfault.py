import ctypes

import jax


@jax.jit
def f(x):
    if x > 0:
        return x
    return x


ctypes.string_at(0)
