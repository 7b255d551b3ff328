import jax
from json import no_such_name_in_json  # noqa: F401


@jax.jit
def f(x):
    if x > 0:  # case: name
        return x
    return -x
