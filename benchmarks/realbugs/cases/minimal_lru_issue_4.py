# source: https://github.com/NicolasZucchet/minimal-LRU/issues/4
# expect: JAX702
# line: 13
# observed: jax 0.10.2 CPU: UserWarning from the astype at line 13 (float64 truncated to float32); the array is float32
# batch: 1
import jax
import jax.numpy as jnp


def nu_init(key, shape, r_min=0.0, r_max=1.0):
    """Initialize the log of the eigenvalue magnitudes of the LRU."""
    u = jax.random.uniform(key=key, shape=shape)
    return jnp.log(-0.5 * jnp.log(u * (r_max ** 2 - r_min ** 2) + r_min ** 2)).astype(jnp.float64)


def theta_init(key, shape, max_phase=6.28):
    u = jax.random.uniform(key, shape=shape)
    return jnp.log(max_phase * u)


key = jax.random.PRNGKey(0)
print(nu_init(key, (4,)).dtype)
