# source: https://github.com/jax-ml/jax/issues/4531
# expect: JAX209
# line: 22
# observed: jax 0.10.2 CPU: IndexError at line 22
# batch: 2
import jax.numpy as jnp
from jax import jit


def compute_x(n_rob, P, Ax_eq_obs, bx_eq, bx_eq_obs, d_obs_ij, alpha_ij, beta_ij,
              lamda_x, rho_w_alpha, cost_mat_inv_x):
    nvar = jnp.shape(P)[1]
    A_w = Ax_eq_obs

    aug_term = bx_eq_obs + 1.22 * d_obs_ij * jnp.cos(alpha_ij) * jnp.sin(beta_ij) - lamda_x / rho_w_alpha
    linterm_augment = -rho_w_alpha * jnp.dot(A_w.T, aug_term)
    lincost_mat = jnp.hstack((-linterm_augment, bx_eq))

    sol_x = jnp.dot(cost_mat_inv_x, lincost_mat)

    # n_rob is an array argument of the jitted function: a traced slice bound
    primal_sol_x = sol_x[0:n_rob * nvar]
    cx = primal_sol_x.reshape(n_rob, nvar)
    return jnp.dot(P, cx.T).T


n_rob, nvar, n_obs = 2, 3, 4
P = jnp.ones((5, nvar))
A = jnp.ones((n_obs, n_rob * nvar))
compute_x_jit = jit(compute_x)
print(compute_x_jit(n_rob, P, A, jnp.ones(2), jnp.ones(n_obs), 1.0, 0.1, 0.2, 0.0, 1.0,
                    jnp.eye(n_rob * nvar + 2)).shape)
