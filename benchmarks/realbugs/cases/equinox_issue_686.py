# source: https://github.com/patrick-kidger/equinox/issues/686
# expect: JAX403
# line: 51
# observed: jax 0.10.2 CPU, equinox: JAX_LOG_COMPILES shows 'Compiling jit(step)' twice, once per optimisation run: each ForwardKinematicTrajectory holds a new jax.jit(fk_fn) wrapper, a static leaf of the model that compares unequal to the last one (with self.forward = fk_fn: one compile)
# batch: 8
from typing import Callable

import equinox as eqx
import jax
import jax.numpy as jnp


class ForwardKinematicTrajectory(eqx.Module):
    trajectory: eqx.Module
    scale_mixer: jax.Array
    forward: Callable

    def __init__(self, fk_fn):
        self.trajectory = eqx.nn.Linear(1, 3, key=jax.random.PRNGKey(0))
        self.scale_mixer = jnp.ones((3,))
        self.forward = jax.jit(fk_fn)

    def __call__(self, data):
        """Meant to be vmapped"""
        return self.forward(self.trajectory(data) * self.scale_mixer)


def fk(q):
    return jnp.stack([jnp.cos(q[0]) + jnp.cos(q[0] + q[1]), jnp.sin(q[0]) + jnp.sin(q[0] + q[1]), q[2]])


def loss(model, X, y):
    return jnp.mean(jnp.square(jax.vmap(model)(X) - y))


@eqx.filter_jit
def step(model, X, y, loss_grad, lr):
    val, grads = loss_grad(model, X, y)
    updates = jax.tree_util.tree_map(lambda g: -lr * g, grads)
    model = eqx.apply_updates(model, updates)
    return val, model


loss_grad = eqx.filter_value_and_grad(loss)
X = jnp.linspace(0.0, 1.0, 20)[:, None]
y = jnp.ones((20, 3))

for run in range(2):
    model = ForwardKinematicTrajectory(fk)
    for i in range(5):
        val, model = step(model, X, y, loss_grad, 1e-2)
    print(run, float(val))
