"""A ValueError at the flagged line that is not vmap's, and a flagged line after the one
that raised: neither is a vmap axes error the program showed."""
import jax
import jax.numpy as jnp

out = jax.vmap(jnp.sin)(jnp.ones(3)); int("x")  # DECOY wording
later = jax.vmap(jnp.sin)(jnp.ones(3))  # DECOY next line
