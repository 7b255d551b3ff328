"""vmap over arguments whose mapped axes differ in size, the call written over two lines."""
import jax
import jax.numpy as jnp


def add(x, y):
    return x + y


out = jax.vmap(add)(jnp.ones(7),
                    jnp.zeros(2))  # REAL sizes
