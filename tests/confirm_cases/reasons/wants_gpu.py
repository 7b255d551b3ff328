import jax

GPU = jax.devices("gpu")[0]  # the program needs a GPU at import


@jax.jit
def f(x):
    if x > 0:  # case: device
        return x
    return -x
