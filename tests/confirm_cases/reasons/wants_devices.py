import jax

assert jax.device_count() >= 8, "run on a TPU slice"


@jax.jit
def f(x):
    if x > 0:  # case: device count
        return x
    return -x
