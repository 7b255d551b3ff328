# source: https://github.com/Dipolar-Quantum-Gases/jaxfit/issues/4
# expect: JAX902
# line: 8
# observed: jax 0.10.2 CPU: ModuleNotFoundError at line 8
# batch: 1
import jax
import jax.numpy as jnp
from jax.config import config

config.update("jax_enable_x64", True)


class CurveFit:
    def __init__(self, f):
        self.f = f
        self.jac = jax.jit(jax.jacfwd(f, argnums=1))

    def residuals(self, xdata, ydata, p):
        return self.f(xdata, p) - ydata


fit = CurveFit(lambda x, p: p[0] * jnp.exp(-p[1] * x))
print(fit.residuals(jnp.arange(3.0), jnp.ones(3), jnp.array([1.0, 0.5])))
