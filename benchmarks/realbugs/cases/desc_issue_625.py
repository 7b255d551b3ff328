# source: https://github.com/PlasmaControl/DESC/issues/625
# expect: JAX205
# line: 40
# observed: jax 0.10.2 CPU: eager compute returns the 42 symmetry-breaking modes, but the jitted ObjectiveFunction.compute raises NonConcreteBooleanIndexError (bool[45]) at line 40: ptolemy_linear_transform returns a boolean mask, not the indices its docstring promises, and the mask reaches the jitted compute as part of the constants argument, so it is traced
# batch: 10
import jax
import jax.numpy as jnp
import numpy as np


def ptolemy_linear_transform(modes, helicity, NFP):
    """Indices of the Boozer modes that break the symmetry (M, N): the docstring's contract."""
    M, N = helicity
    idx = np.ones(len(modes), dtype=bool)
    if M != 0 or N != 0:
        idx_MN = np.nonzero(modes[:, 1] * N * NFP == modes[:, 2] * M)[0]
        idx[idx_MN] = False
    return idx


class QuasisymmetryBoozer:
    def __init__(self, helicity=(1, 0), M_booz=4, N_booz=4, NFP=1):
        self.helicity, self.M_booz, self.N_booz, self.NFP = helicity, M_booz, N_booz, NFP

    def build(self, n_nodes=64, seed=0):
        modes = [(0, m, n) for m in range(self.M_booz + 1) for n in range(-self.N_booz, self.N_booz + 1)]
        self._modes = np.array(modes)
        self._idx = ptolemy_linear_transform(self._modes, self.helicity, self.NFP)
        rng = np.random.default_rng(seed)
        self.constants = {
            "transform": rng.normal(size=(len(modes), n_nodes)) / n_nodes,
            "idx": self._idx,
        }
        self.dim_f = int(self._idx.sum())

    def compute(self, params, constants=None):
        if constants is None:
            constants = self.constants
        B_mn = constants["transform"] @ params["|B|"]
        return B_mn[constants["idx"]]


class ObjectiveFunction:
    def __init__(self, objectives):
        self.objectives = objectives

    def build(self):
        for obj in self.objectives:
            obj.build()
        self._compute = jax.jit(self._compute_unjitted)

    def _compute_unjitted(self, params, constants):
        return jnp.concatenate([obj.compute(params, c) for obj, c in zip(self.objectives, constants)])

    def compute(self, params):
        return self._compute(params, [obj.constants for obj in self.objectives])

    def compute_scalar(self, params):
        return jnp.sum(self.compute(params) ** 2)


objective = ObjectiveFunction((QuasisymmetryBoozer(helicity=(1, 2)),))
objective.build()
params = {"|B|": 1.0 + 0.1 * jnp.cos(jnp.linspace(0, 2 * jnp.pi, 64))}
print("eager:", objective.objectives[0].compute(params).shape)
print("optimize step:", objective.compute_scalar(params))
