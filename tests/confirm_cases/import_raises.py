"""The module's own top-level code triggers a trace error: the import failure is the evidence."""
import jax


@jax.jit
def f(x):
    if x > 0:  # REAL: raised while importing, by the call below
        return x
    return -x


@jax.jit
def g(x):
    if x < 0:  # DECOY: never runs; the import fails in f
        return x
    return -x


f(1.0)
