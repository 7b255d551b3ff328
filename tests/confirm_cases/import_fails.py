import jax
import not_a_module_anywhere_xyz  # noqa: F401


@jax.jit
def f(x):
    if x > 0:
        return x
    return x
