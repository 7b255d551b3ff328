# source: https://github.com/probml/JSL/issues/25
# expect: JAX303
# line: 19
# observed: jax 0.10.2 CPU: AttributeError at line 19
# batch: 1
import jax
import jax.numpy as jnp
from jax import lax


def kalman_smoother_means(mu_filtered, A):
    n_steps, dim = mu_filtered.shape
    mu_smoothed = jnp.zeros((n_steps, dim))
    mu_smoothed = mu_smoothed.at[-1].set(mu_filtered[-1])

    def step(t, mu_smoothed):
        t = n_steps - 2 - t
        mu = mu_filtered[t] + A @ (mu_smoothed[t + 1] - A @ mu_filtered[t])
        return jax.ops.index_update(mu_smoothed, t, mu)

    return lax.fori_loop(0, n_steps - 1, step, mu_smoothed)


print(kalman_smoother_means(jnp.ones((5, 2)), jnp.eye(2)))
