# source: https://github.com/PlasmaControl/DESC/pull/1043
# expect: JAX402
# observed: jax 0.10.2 CPU: project and recover each compiled 5 times, once per outer iteration (JAX_LOG_COMPILES)
# batch: 2
import jax.numpy as jnp
from jax import jit


def factorize_linear_constraints(A, b, unfixed_idx):
    Z = jnp.linalg.svd(A)[2][A.shape[0]:].T
    xp = jnp.linalg.pinv(A) @ b

    @jit
    def project(x):
        """Project a full state vector into the reduced optimization vector."""
        x_reduced = Z.T @ ((x - xp)[unfixed_idx])
        return jnp.atleast_1d(jnp.squeeze(x_reduced))

    @jit
    def recover(x_reduced):
        """Recover the full state vector from the reduced optimization vector."""
        dx = jnp.zeros(A.shape[1]).at[unfixed_idx].set(Z @ x_reduced)
        return jnp.atleast_1d(jnp.squeeze(xp + dx))

    return project, recover


A = jnp.array([[1.0, 0.0, 0.0, 0.0]])
b = jnp.array([1.0])
x = jnp.ones(4)
for outer_iteration in range(5):
    # every outer iteration builds new project/recover functions: each one compiles again
    project, recover = factorize_linear_constraints(A, b, jnp.arange(4))
    x = recover(project(x) * 0.9)
print(x)
