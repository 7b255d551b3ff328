# source: https://github.com/netket/netket/issues/908
# expect: JAX204
# line: 15
# observed: jax 0.10.2 CPU: the schedule works outside jit (0.1, 0.05); the jitted apply_gradient raises TracerArrayConversionError at line 15 (np.cos on the traced step count)
# batch: 11
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def schedule(n, eta=0.05, restart=100):
    """SGD with warm restarts: the learning rate as a function of the step count."""
    return (1 + np.cos(np.pi * (n % restart) / restart)) * eta


class Sgd:
    """optax.sgd in miniature: the learning rate may be a number or a schedule of the step."""

    def __init__(self, learning_rate):
        self.learning_rate = learning_rate

    def init(self, params):
        return {"count": jnp.zeros([], jnp.int32)}

    def update(self, grads, state):
        lr = self.learning_rate(state["count"]) if callable(self.learning_rate) else self.learning_rate
        updates = jax.tree_util.tree_map(lambda g: -lr * g, grads)
        return updates, {"count": state["count"] + 1}


@partial(jax.jit, static_argnums=0)
def apply_gradient(optimizer, optimizer_state, dp, params):
    updates, optimizer_state = optimizer.update(dp, optimizer_state)
    return optimizer_state, jax.tree_util.tree_map(jnp.add, params, updates)


class VMC:
    """The driver loop: estimate the energy gradient, then take an optimizer step."""

    def __init__(self, energy, optimizer, params):
        self.energy, self.optimizer, self.params = energy, optimizer, params
        self.optimizer_state = optimizer.init(params)

    def run(self, n_iter):
        for step in range(n_iter):
            e, dp = jax.value_and_grad(self.energy)(self.params)
            self.optimizer_state, self.params = apply_gradient(self.optimizer, self.optimizer_state, dp, self.params)
            print(step, float(e))


def energy(params):
    return jnp.sum((params["theta"] - 1.0) ** 2) + jnp.sum(jnp.cos(params["theta"]))


print("schedule outside jit:", schedule(0), schedule(50))
gs = VMC(energy, Sgd(schedule), {"theta": jnp.zeros(4)})
gs.run(n_iter=3)
