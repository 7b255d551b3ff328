# source: https://github.com/climate-analytics-lab/jax-gcm/issues/735
# expect: JAX103
# line: 41
# observed: jax 0.10.2 CPU: after `term.params.set_value(...replace(trvdi=2.0))` the second run is bit-identical to the first (printed: True), while a fresh model built with trvdi=2 differs (True): `_run_from_state` takes the model as static `self`, hashed by identity, so the executable traced with trvdi=24 (read at line 41) is reused
# batch: 13
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp


class VerticalDiffusionParams(NamedTuple):
    trvdi: float = 24.0  # relaxation timescale (hours)
    trshc: float = 6.0

    def replace(self, **kw):
        return self._replace(**kw)


class Param:
    """A mutable parameter holder (the reporter's nnx.Param): get_value / set_value."""

    def __init__(self, value):
        self._value = value

    def get_value(self):
        return self._value

    def set_value(self, value):
        self._value = value


class VerticalDiffusion:
    name = "speedy_vertical_diffusion"

    def __init__(self, params=VerticalDiffusionParams()):
        self.params = Param(params)

    def tendency(self, temperature):
        p = self.params.get_value()
        mean = jnp.mean(temperature, axis=0, keepdims=True)
        return (mean - temperature) / (p.trvdi * 3600.0)


class Model:
    def __init__(self, physics, time_step=30.0):
        self.physics = physics
        self.time_step = time_step

    # Note: changing fields assumed static won't propagate.
    @partial(jax.jit, static_argnums=(0, 2))
    def _run_from_state(self, temperature, n_steps):
        def step(t, _):
            tend = sum(term.tendency(t) for term in self.physics.terms)
            return t + self.time_step * 60.0 * tend, None

        temperature, _ = jax.lax.scan(step, temperature, None, length=n_steps)
        return temperature

    def run(self, temperature, total_time=0.5):
        n_steps = int(total_time * 24 * 60 / self.time_step)
        return self._run_from_state(temperature, n_steps)


class Physics(NamedTuple):
    terms: tuple


T0 = 250.0 + 30.0 * jax.random.uniform(jax.random.PRNGKey(0), (8, 96, 48))
m = Model(physics=Physics(terms=(VerticalDiffusion(),)), time_step=30.0)
T1 = m.run(T0)

term = next(t for t in m.physics.terms if t.name == "speedy_vertical_diffusion")
term.params.set_value(term.params.get_value().replace(trvdi=2.0))
T2 = m.run(T0)

fresh = Model(physics=Physics(terms=(VerticalDiffusion(VerticalDiffusionParams(trvdi=2.0)),)), time_step=30.0)
T3 = fresh.run(T0)
print("trvdi=2 in place identical to trvdi=24:", bool(jnp.array_equal(T1, T2)))
print("trvdi=2 in a fresh model differs:", not bool(jnp.array_equal(T1, T3)))
