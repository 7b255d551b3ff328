"""jnp.where guarding a sqrt, differentiated by the program (REAL: NaN at 0); the double-where
(DECOY: finite); a NaN gradient from a computation that never runs the flagged line (DECOY)."""
import jax
import jax.numpy as jnp


def unsafe_sqrt(x):
    return jnp.where(x <= 0, 0.0, jnp.sqrt(x))  # REAL where


def safe_sqrt(x):
    safe = jnp.where(x <= 0, 1.0, x)
    return jnp.where(x <= 0, 0.0, jnp.sqrt(safe))  # DECOY double where


def other(x):
    return jnp.where(x <= 0, 0.0, jnp.sqrt(x))  # DECOY not differentiated


print(jax.grad(lambda xs: jnp.sum(unsafe_sqrt(xs)))(jnp.array([0.0, 4.0])))
print(jax.grad(lambda xs: jnp.sum(safe_sqrt(xs)))(jnp.array([0.0, 4.0])))
print(other(jnp.array([0.0, 4.0])), jax.grad(lambda x: 0.0 * jnp.sqrt(x))(0.0))
