"""eqx.filter_jit: Python ints are static, and equinox compiles through its own cached jit,
for which JAX logs no cache miss. The compiles are attributed by the line on the stack."""
import equinox as eqx
import jax.numpy as jnp


@eqx.filter_jit
def shift(x, n):
    return x + n


x = jnp.ones(3)
for step in range(6):
    x = shift(x, step)  # REAL a new int each step
    x = shift(x, 1)  # DECOY the same int each step
