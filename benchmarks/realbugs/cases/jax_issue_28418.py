# source: https://github.com/jax-ml/jax/issues/28418
# expect: JAX103
# line: 25
# observed: jax 0.10.2 CPU: "tracing" printed once; the jitted method returns 0.015625 (the temperature-1.0 value) after `sim.temperature = 2.0` and during `anneal` over 4.0 and 8.0: jit keys the static `self` by hash and equality, which do not change when its attribute does
# batch: 12
from functools import partial

import jax
import jax.numpy as jnp


class IsingSimulator:
    """A lattice model whose temperature is a plain attribute, read inside a jitted method."""

    def __init__(self, size, coupling=1.0, temperature=1.0):
        self.size = size
        self.coupling = coupling
        self.temperature = temperature

    @partial(jax.jit, static_argnums=0)
    def free_energy_density(self, spins):
        print("tracing")
        neighbours = jnp.roll(spins, 1, axis=0) + jnp.roll(spins, 1, axis=1)
        energy = -self.coupling * jnp.mean(spins * neighbours)
        return energy / self.temperature

    def anneal(self, spins, temperatures):
        out = []
        for t in temperatures:
            self.temperature = t
            out.append(float(self.free_energy_density(spins)))
        return out


spins = jnp.where(jax.random.bernoulli(jax.random.PRNGKey(0), 0.5, (16, 16)), 1.0, -1.0)
sim = IsingSimulator(16)
print("T=1.0:", sim.free_energy_density(spins))
sim.temperature = 2.0
print("T=2.0:", sim.free_energy_density(spins))
print("anneal:", sim.anneal(spins, [4.0, 8.0]))
