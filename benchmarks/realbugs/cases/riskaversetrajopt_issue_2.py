# source: https://github.com/StanfordASL/RiskAverseTrajOpt/issues/2
# expect: JAX904
# line: 42
# observed: jax 0.10.2 CPU: AttributeError "'jaxlib._jax.ArrayImpl' object has no attribute 'to_py'" at line 42 when the solver asks for the objective's coefficients (the reporter: "ArrayImpl object has no attribute to_py ... fix it by use np.array instead of to_py"); the code was written for jax 0.2.11, where DeviceArray had `to_py()`
# batch: 15
# (car/driving.py at 59b0ad0, trimmed to the objective of the SCP solver; scipy's csc_matrix replaced by np.asarray)
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import jit

jax.config.update("jax_enable_x64", True)

n_u = 2
S = 5
M = 3
dt = 0.1
R = 0.5 * jnp.eye(n_u)


class Planner:
    def __init__(self, us_init):
        self.us = us_init

    @partial(jit, static_argnums=(0,))
    def get_objective_coeffs_jax(self):
        # (M + 2) variables for the risk constraint
        P = jnp.zeros((n_u * S + M + 2, n_u * S + M + 2))
        q = jnp.zeros(n_u * S + M + 2)
        for t in range(S):
            idx = t * n_u
            P = P.at[idx:idx + n_u, idx:idx + n_u].set(2 * dt * R)
        P = P.at[-2, -2].set(1000.0)
        q = q.at[-2].set(1000.0)
        return P, q

    def get_objective_coeffs(self):
        # Returns (P, q) of the objective min (1/2 z^T P z + q^T z), z the controls.
        P, q = self.get_objective_coeffs_jax()
        P, q = np.asarray(P.to_py()), q.to_py()
        return P, q


planner = Planner(np.zeros((S, n_u)))
P, q = planner.get_objective_coeffs()
print(P.shape, q.shape)
