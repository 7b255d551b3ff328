# source: https://github.com/PlasmaControl/DESC/issues/1191
# expect: JAX402
# line: 38
# observed: jax 0.10.2 CPU: compute_scaled_error and jac_scaled are each traced (and compiled) 4 times in 4 outer iterations with identical shapes ({'compute_scaled_error': 4, 'jac_scaled': 4}): ProximalProjection.build() calls ObjectiveFunction.jit() every iteration, which wraps fresh bound methods in jax.jit, and a new bound method misses the jit cache
# batch: 9
import jax
import jax.numpy as jnp

TRACES = {"compute_scaled_error": 0, "jac_scaled": 0}


class ForceBalance:
    def __init__(self, target=0.0, weight=1.0):
        self.target = target
        self.weight = weight

    def compute(self, x):
        return (jnp.sin(x) * x - self.target) * self.weight


class ObjectiveFunction:
    def __init__(self, objectives, use_jit=True):
        self.objectives = objectives
        self.use_jit = use_jit

    def compute_scaled_error(self, x):
        TRACES["compute_scaled_error"] += 1
        return jnp.concatenate([obj.compute(x) for obj in self.objectives])

    def jac_scaled(self, x):
        TRACES["jac_scaled"] += 1
        return jax.jacfwd(self.compute_scaled_error)(x)

    def jit(self):
        for name in ("compute_scaled_error", "jac_scaled"):
            if name in self.__dict__:
                del self.__dict__[name]
        self.compute_scaled_error = jax.jit(self.compute_scaled_error)
        self.jac_scaled = jax.jit(self.jac_scaled)

    def build(self):
        if self.use_jit:
            self.jit()
        self.built = True


class ProximalProjection:
    def __init__(self, objective):
        self._objective = objective

    def build(self):
        self._objective.build()

    def compute_scaled_error(self, x):
        return self._objective.compute_scaled_error(x)

    def jac_scaled(self, x):
        return self._objective.jac_scaled(x)


def lsq_step(prox, x):
    f = prox.compute_scaled_error(x)
    J = prox.jac_scaled(x)
    return x - jnp.linalg.lstsq(J, f)[0]


def optimize(prox, x, maxiter=4):
    for it in range(maxiter):
        prox.build()  # the equilibrium moved: rebuild the constraint projection
        x = lsq_step(prox, x)
        print(it, float(jnp.linalg.norm(prox.compute_scaled_error(x))))
    return x


prox = ProximalProjection(ObjectiveFunction([ForceBalance(target=0.1)]))
x = optimize(prox, jnp.linspace(0.5, 1.5, 8))
print(TRACES)
