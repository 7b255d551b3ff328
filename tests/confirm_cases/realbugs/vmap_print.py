"""print in a vmapped function: the program prints a tracer (REAL); printing a shape prints
a concrete tuple (DECOY)."""
import jax
import jax.numpy as jnp


def show(x):
    print(x)  # REAL print
    return x * 2


def show_shape(x):
    print(x.shape)  # DECOY shape
    return x * 2


jax.vmap(show)(jnp.ones((4, 2)))
jax.vmap(show_shape)(jnp.ones((4, 2)))
