import os

import jax


@jax.jit
def f(x):
    if x > 0:
        return x
    return x


os._exit(3)
