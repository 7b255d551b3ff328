# source: https://github.com/pmelchior/scarlet2/issues/120
# expect: JAX403
# line: 78
# observed: jax 0.10.2 CPU: `_make_step` traced (and compiled) 5 times for 5 fits with identical shapes and dtypes; JAX_EXPLAIN_CACHE_MISSES names the static `optim`: each `fit` builds a new optimizer chain of closures (scale_by_adam, scale_by_stepsize), hashed by identity, so every new scene recompiles the update step
# batch: 13
import dataclasses
from functools import partial
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

TRACES = []


class GradientTransformation(NamedTuple):
    init: Callable
    update: Callable


def chain(*transforms):
    def init_fn(params):
        return tuple(t.init(params) for t in transforms)

    def update_fn(updates, state, params=None):
        new_state = []
        for t, s in zip(transforms, state):
            updates, s = t.update(updates, s, params)
            new_state.append(s)
        return updates, tuple(new_state)

    return GradientTransformation(init_fn, update_fn)


def scale_by_adam(b1=0.9, b2=0.999, eps=1e-8):
    def init_fn(params):
        zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
        return (zeros, zeros, jnp.zeros((), jnp.int32))

    def update_fn(updates, state, params=None):
        mu, nu, count = state
        mu = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, mu, updates)
        nu = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g**2, nu, updates)
        count = count + 1
        updates = jax.tree_util.tree_map(
            lambda m, v: (m / (1 - b1**count)) / (jnp.sqrt(v / (1 - b2**count)) + eps), mu, nu)
        return updates, (mu, nu, count)

    return GradientTransformation(init_fn, update_fn)


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Scene:
    flux: jax.Array
    center: jax.Array

    def __call__(self, grid):
        return self.flux * jnp.exp(-0.5 * jnp.sum((grid - self.center) ** 2, axis=-1))

    def fit(self, observation, stepsize=1e-2, max_iter=50):
        steps = jax.tree_util.tree_map(lambda _: stepsize, self)

        def scale_by_stepsize():
            def init_fn(params):
                return ()

            def update_fn(updates, state, params):
                return jax.tree_util.tree_map(lambda u, s: -s * u, updates, steps), state

            return GradientTransformation(init_fn, update_fn)

        # run adam, followed by stepsize adjustments
        optim = chain(scale_by_adam(), scale_by_stepsize())
        opt_state = optim.init(self)
        scene = self
        for step in range(max_iter):
            scene, loss, opt_state = _make_step(scene, observation, optim, opt_state)
        return scene, loss


@dataclasses.dataclass(frozen=True)
class Observation:
    data: jax.Array
    grid: jax.Array
    weights: jax.Array

    def log_likelihood(self, model):
        return -0.5 * jnp.sum(self.weights * (model - self.data) ** 2)


jax.tree_util.register_dataclass(Observation, data_fields=["data", "grid", "weights"], meta_fields=[])


# update step for the optimizer
@partial(jax.jit, static_argnames=("optim",))
def _make_step(model, observation, optim, opt_state):
    TRACES.append(1)
    loss, grads = jax.value_and_grad(lambda m: -observation.log_likelihood(m(observation.grid)))(model)
    updates, opt_state = optim.update(grads, opt_state, model)
    model = jax.tree_util.tree_map(lambda p, u: p + u, model, updates)
    return model, loss, opt_state


yy, xx = jnp.meshgrid(jnp.arange(32.0), jnp.arange(32.0), indexing="ij")
grid = jnp.stack([yy, xx], axis=-1)
for i in range(5):  # one fit per source of a survey, all with the same shapes
    truth = Scene(flux=jnp.float32(1.0 + i), center=jnp.array([15.0 + i, 16.0]))
    obs = Observation(data=truth(grid), grid=grid, weights=jnp.ones((32, 32)))
    scene, loss = Scene(flux=jnp.float32(1.0), center=jnp.array([16.0, 16.0])).fit(obs)
print("traces of _make_step for 5 fits of identical shapes:", len(TRACES))
