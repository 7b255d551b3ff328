# source: https://github.com/fermiflow/CoulombGas/issues/5
# expect: JAX303
# line: 16
# observed: jax 0.10.2 CPU: AttributeError at line 16
# batch: 1
import jax
import jax.numpy as jnp


def sample_x_mcmc(key, x, step_size):
    n, dim = x.shape
    key, key_idx, key_move = jax.random.split(key, 3)
    idx = jax.random.randint(key_idx, (), 0, n)
    move = step_size * jax.random.normal(key_move, (dim,))
    # move one particle at a time
    x_new = jax.ops.index_add(x, idx, move)
    return key, x_new


key = jax.random.PRNGKey(42)
key, x = sample_x_mcmc(key, jnp.zeros((4, 2)), 0.1)
print(x)
