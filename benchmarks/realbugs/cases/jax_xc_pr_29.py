# source: https://github.com/sail-sg/jax_xc/pull/29
# expect: JAX701
# line: 42
# observed: jax 0.10.2 CPU: E_c = -0.0222 (finite), 400 of 400 entries of the potential (jax.grad of the energy) are nan: for the fully polarized density 1 - zeta = 0, the where selects the threshold branch, but the untaken t46 ** (1/3) has an infinite derivative at 0 and 0 * inf = nan flows back to both spin densities
# batch: 13
"""Spin-polarized Chachiyo correlation in the generated maple2jax style, and its potential by autodiff."""
from collections import namedtuple

import jax
import jax.numpy as jnp

Params = namedtuple("Params", "ap bp cp af bf cf")
CHACHIYO = Params(ap=(jnp.log(2.0) - 1) / (2 * jnp.pi**2), bp=20.4562557, cp=20.4562557,
                  af=(jnp.log(2.0) - 1) / (4 * jnp.pi**2), bf=27.4203609, cf=27.4203609)


class XCFunctional:
    def __init__(self, params, zeta_threshold=1e-10, dens_threshold=1e-15):
        self.params = params
        self.zeta_threshold = zeta_threshold
        self.dens_threshold = dens_threshold

    def pol(self, rho):
        """Energy per particle for (rho_up, rho_down); generated-code style temporaries."""
        params_a_ap, params_a_bp, params_a_cp, params_a_af, params_a_bf, params_a_cf = self.params
        p_a_zeta_threshold = self.zeta_threshold
        t1 = rho[0] + rho[1]
        t2 = (3 / (4 * jnp.pi * t1)) ** (1 / 3)
        t10 = 1 / t2
        t19 = t10**2
        t23 = jnp.log(1 + params_a_bp * t10 + params_a_cp * t19)
        t24 = params_a_ap * t23
        t32 = jnp.log(1 + params_a_bf * t10 + params_a_cf * t19)
        t38 = (rho[0] - rho[1]) / t1
        t39 = 1 + t38
        t41 = p_a_zeta_threshold ** (1 / 3)
        t42 = t41**2
        t43 = t39 ** (1 / 3)
        t44 = t43**2
        t45 = jnp.where(t39 <= p_a_zeta_threshold, t42, t44)
        t46 = 1 - t38
        t48 = t46 ** (1 / 3)
        t49 = t48**2
        t50 = jnp.where(t46 <= p_a_zeta_threshold, t42, t49)
        t52 = t45 / 2 + t50 / 2
        t53 = t52**2
        return t24 + (params_a_af * t32 - t24) * (-2 * t53 * t52 + 2)

    def energy(self, rho_grid, weights):
        eps = jax.vmap(self.pol)(rho_grid)
        return jnp.sum(weights * eps * rho_grid.sum(-1))

    def potential(self, rho_grid, weights):
        return jax.grad(self.energy)(rho_grid, weights)


# one electron, spin up: a hydrogen-like density, rho_down = 0 everywhere
r = jnp.linspace(0.05, 8.0, 200)
rho_up = jnp.exp(-2 * r) / jnp.pi
rho_grid = jnp.stack([rho_up, jnp.zeros_like(rho_up)], axis=-1)
weights = 4 * jnp.pi * r**2 * (r[1] - r[0])
xc = XCFunctional(CHACHIYO)
print("E_c:", xc.energy(rho_grid, weights))
vxc = xc.potential(rho_grid, weights)
print("nan in the potential:", int(jnp.isnan(vxc).sum()), "of", vxc.size)
