"""The program turns 64-bit mode on itself: its float64 is a float64."""
import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402

x = jnp.zeros(3, dtype=jnp.float64)  # DECOY x64: the program enabled x64
