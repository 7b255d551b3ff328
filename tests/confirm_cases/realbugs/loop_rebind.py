"""`-=` on a loop variable: the JAX arrays in the list are never updated (REAL); the same
loop over NumPy arrays updates them in place (DECOY)."""
import jax.numpy as jnp
import numpy as np

params = [jnp.ones(2), jnp.ones(3)]
grads = [jnp.ones(2), jnp.ones(3)]
for param, grad in zip(params, grads):
    param -= 0.1 * grad  # REAL rebind

buffers = [np.ones(2), np.ones(3)]
for buffer, grad in zip(buffers, grads):
    buffer -= 0.1 * np.asarray(grad)  # DECOY in place
