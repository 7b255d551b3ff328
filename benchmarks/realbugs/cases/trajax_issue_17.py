# source: https://github.com/google/trajax/issues/17
# expect: JAX406
# line: 12
# observed: jax 0.10.2 CPU: ValueError at line 12
# batch: 4
from functools import partial

import jax
import jax.numpy as np


@partial(jax.jit, static_argnums=(0, 6))
def ilqr(cost, dynamics, x0, U, maxiter, grad_norm_threshold):
    """Iterative LQR (the solver's extra option argument was dropped from the signature)."""
    def rollout(U):
        def step(x, u):
            x_next = dynamics(x, u)
            return x_next, x_next
        return jax.lax.scan(step, x0, U)[1]

    X = rollout(U)
    return X, np.sum(jax.vmap(cost)(X, U))


cost = lambda x, u: np.sum(x ** 2) + 0.1 * np.sum(u ** 2)
dynamics = lambda x, u: x + 0.1 * u
print(ilqr(cost, dynamics, np.ones(2), np.zeros((5, 2)), 10, 1e-4))
