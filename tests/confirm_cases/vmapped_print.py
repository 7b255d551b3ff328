"""Prints in functions the program only vmaps (tests/test_confirm_vmapped_print.py): vmap keeps
no trace cache, so the print runs on every call; what it writes decides."""
import jax
import jax.numpy as jnp


def show_shape(x):
    print("shape", x.shape)  # DECOY shape: a concrete shape, printed on every call
    return x * 2


def show_values(x):
    print("values", x)  # REAL values: a VmapTracer, not the numbers
    return x * 2


batch = jnp.ones((2, 3))
for _ in range(3):
    jax.vmap(show_shape)(batch)
    jax.vmap(show_values)(batch)


def show_later(x):
    print("later", x)  # REAL unrun: vmapped, never called at import
    return x * 2


batched_later = jax.vmap(show_later)
