# source: https://github.com/jax-ml/jax/issues/6752
# expect: JAX303
# line: 9
# observed: jax 0.10.2 CPU: ImportError "cannot import name 'index_update' from 'jax.ops'" at line 9; the reporter's maximum-likelihood fit of the correlation-Cholesky parameterisation (built with index_update / index) never runs
# batch: 14
import jax.numpy as jnp
import jax.scipy.stats as stats
from jax import grad, jit, random
from jax.ops import index_update, index
import jax

jax.config.update("jax_debug_nans", True)

dim = 3


def get_matrix(y):
    """Returns the cholesky factor of a correlation matrix, as Stan's documentation"""
    zmat = jnp.eye(dim, dtype=jnp.float32)
    zmat = index_update(zmat, jnp.tril_indices(dim, -1), jnp.tanh(y))
    x = zmat
    for i in range(1, dim):
        x = index_update(x, index[:, i],
                         x[:, i] * jnp.sqrt(1 - jnp.sum(x[:, :i] ** 2, axis=1)))
    return x


def loglik(params, data):
    tau = jnp.exp(params[:dim])
    chol = get_matrix(params[dim:])
    cov = jnp.diag(tau) @ chol @ chol.T @ jnp.diag(tau)
    return jnp.sum(stats.multivariate_normal.logpdf(data, jnp.zeros(dim), cov))


@jit
def step(params, data, lr=1e-3):
    return params + lr * grad(loglik)(params, data)


data = random.normal(random.PRNGKey(0), (100, dim))
params = jnp.zeros(dim + dim * (dim - 1) // 2)
for _ in range(10):
    params = step(params, data)
print(params)
