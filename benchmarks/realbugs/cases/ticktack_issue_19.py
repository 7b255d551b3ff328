# source: https://github.com/SharmaLlama/ticktack/issues/19
# expect: JAX204
# line: 39
# observed: jax 0.10.2 CPU: run() without a target returns 3064.89; with target_C_14 it raises TracerArrayConversionError (traced float64[1]) at line 39: inside the jitted run, x0 is built from the traced target and scipy.optimize.minimize calls np.asarray on it
# batch: 10
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize

jax.config.update("jax_enable_x64", True)


class CarbonBoxModel:
    """Four-box carbon cycle: troposphere, stratosphere, surface ocean, biosphere."""

    def __init__(self, fluxes, production_coefficients, decay_rate=1.0 / 8267.0):
        fluxes = np.asarray(fluxes, dtype=np.float64)
        reservoirs = np.array([7.0, 1.0, 9.0, 3.0])
        self._matrix = jnp.asarray(fluxes / reservoirs[:, None]).T - jnp.diag(
            (fluxes / reservoirs[:, None]).sum(axis=1) + decay_rate)
        self._coefficients = jnp.asarray(production_coefficients)

    def equilibrate(self, production):
        return jnp.linalg.solve(self._matrix, -production * self._coefficients)

    def derivative(self, y, production):
        return self._matrix @ y + production * self._coefficients

    def _equilibrate_guttler(self, target_C_14):
        target_C_14 = jnp.array(target_C_14, dtype=jnp.float64)

        def objective(production):
            return float((self.equilibrate(production[0])[0] - target_C_14[0]) ** 2)

        x0 = jnp.array([1.8]) * target_C_14 / 500.0
        result = scipy.optimize.minimize(objective, x0, method="Nelder-Mead")
        return result.x[0]

    @partial(jax.jit, static_argnums=(0,))
    def run(self, time_values, production, target_C_14=None):
        if target_C_14 is not None:
            steady_production = self._equilibrate_guttler(target_C_14)
        else:
            steady_production = production[0]
        y0 = self.equilibrate(steady_production)
        dt = time_values[1] - time_values[0]

        def step(y, q):
            y = y + dt * self.derivative(y, q)
            return y, y

        _, states = jax.lax.scan(step, y0, production)
        return states


fluxes = [[0.0, 0.2, 0.1, 0.3], [0.5, 0.0, 0.0, 0.0], [0.05, 0.0, 0.0, 0.0], [0.1, 0.0, 0.0, 0.0]]
cbm = CarbonBoxModel(fluxes, production_coefficients=[0.7, 0.3, 0.0, 0.0])
time_values = jnp.arange(0.0, 50.0, 1.0)
production = 1.8 * jnp.ones_like(time_values)
print("without target:", cbm.run(time_values, production)[-1, 0])
print("with target:", cbm.run(time_values, production, target_C_14=jnp.array([707.0]))[-1, 0])
