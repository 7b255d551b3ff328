"""A donated array passed to the same jitted function again (ValueError), and one read
afterwards by an eager op (RuntimeError)."""
import jax
import jax.numpy as jnp


def step(x):
    return x + 1


step_jit = jax.jit(step, donate_argnums=(0,))
buf = jnp.ones(3)
step_jit(buf)
try:
    step_jit(buf)  # REAL again
except ValueError:
    pass
other = jnp.ones(3)
step_jit(other)
print(other + 1)  # REAL read
