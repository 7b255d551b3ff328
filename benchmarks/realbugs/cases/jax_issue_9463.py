# source: https://github.com/jax-ml/jax/issues/9463
# expect: JAX207
# line: 22
# observed: jax 0.10.2 CPU: TypeError at line 22
# batch: 2
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)

num_rows = 5
num_cols = 20


@jax.jit
def columns(smf, par_init, lb, ub):
    par = jnp.broadcast_to(par_init[:, None], (num_rows, num_cols))
    kvals = jnp.where(jnp.isinf(smf), 1, num_cols)
    kvals = jnp.insert(kvals, 0, 0)
    kvals = jnp.cumsum(kvals)

    par0_col = jnp.zeros(num_rows * num_cols - (num_cols - 1) * jnp.sum(jnp.isinf(smf)))
    lb_col = jnp.zeros(num_rows * num_cols - (num_cols - 1) * jnp.sum(jnp.isinf(smf)))
    ub_col = jnp.zeros(num_rows * num_cols - (num_cols - 1) * jnp.sum(jnp.isinf(smf)))

    for i in range(num_rows):
        par0_col = par0_col.at[kvals[i]:kvals[i + 1]].set(par[i, :kvals[i + 1] - kvals[i]])
        lb_col = lb_col.at[kvals[i]:kvals[i + 1]].set(lb[i])
        ub_col = ub_col.at[kvals[i]:kvals[i + 1]].set(ub[i])
    return par0_col, lb_col, ub_col


smf = jnp.array([jnp.inf, 0.1, 0.1, 0.1, 0.1])
par_init = jnp.array([1.0, 2.0, 3.0, 4.0, 5.0])
lb = jnp.full(5, 0.1)
ub = jnp.full(5, 10.0)
print(columns(smf, par_init, lb, ub))
