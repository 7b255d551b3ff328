# source: https://github.com/PlasmaControl/DESC/pull/310
# expect: JAX103
# line: 35
# observed: jax 0.10.2 CPU: after obj.target = 1.0 and obj.weight = 10.0 the jitted compute still returns [0.5 1.5 2.5] (the residuals for target 0, weight 1); the unjitted method gives [-5. 5. 15.]: self's attributes were baked in at the first trace
# batch: 8
import jax.numpy as jnp
from jax import jit


class _Objective:
    def __init__(self, target=0, weight=1, name="objective"):
        self.target = target
        self.weight = weight
        self.name = name
        self._built = False

    def build(self, use_jit=True):
        self._dim_f = 3
        if use_jit:
            self.compute = jit(self.compute)
        self._built = True

    def compute_scaled(self, *args):
        f = self.compute(*args)
        return jnp.atleast_1d(f)


class ForceBalance(_Objective):
    def __init__(self, eq=None, target=0, weight=1, name="force"):
        super().__init__(target=target, weight=weight, name=name)
        self.eq = eq

    def compute(self, R_lmn, Z_lmn):
        f_rho = R_lmn * Z_lmn + 0.5
        return (f_rho - self.target) * self.weight


R_lmn = jnp.array([0.0, 1.0, 2.0])
Z_lmn = jnp.array([1.0, 1.0, 1.0])
obj = ForceBalance(target=0, weight=1)
obj.build(use_jit=True)
print(obj.compute_scaled(R_lmn, Z_lmn))

# perturb: a new target and weight for the next solve
obj.target = 1.0
obj.weight = 10.0
print(obj.compute_scaled(R_lmn, Z_lmn))
print(ForceBalance.compute(obj, R_lmn, Z_lmn))
