# source: https://github.com/jax-ml/jax/issues/2630
# expect: JAX701
# line: 12
# observed: jax 0.10.2 CPU: grad is [ nan 0.25]: NaN at x = 0 although the where selects 0 there
# batch: 3
import jax
import jax.numpy as jnp


def safe_sqrt(x):
    # meant to guard against NaNs: the sqrt branch is still differentiated at x = 0
    return jnp.where(x <= 0, 0.0, jnp.sqrt(x))


def energy(xs):
    return jnp.sum(safe_sqrt(xs))


print(jax.grad(energy)(jnp.array([0.0, 4.0])))
