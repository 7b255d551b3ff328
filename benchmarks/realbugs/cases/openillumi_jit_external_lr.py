# source: https://openillumi.com/en/en-jax-jit-external-variable-implicit-argument-jaxpr
# expect: JAX103
# line: 36
# observed: jax 0.10.2 CPU: after extra_learning_rate = 0.01 the step still scales updates by 0.1 (w moves 0.1 per step before and after the change, 0.01 expected after): the global was baked into step's first trace
# batch: 8
from typing import NamedTuple

import jax
import jax.numpy as jnp


class GradientTransformation(NamedTuple):
    init: callable
    update: callable


def sgd(learning_rate):
    def init(params):
        return {"count": jnp.zeros([], jnp.int32)}

    def update(grads, state, params=None):
        updates = jax.tree_util.tree_map(lambda g: -learning_rate * g, grads)
        return updates, {"count": state["count"] + 1}

    return GradientTransformation(init, update)


optimizer = sgd(learning_rate=1.0)
extra_learning_rate = 0.1


@jax.jit
def step(params, opt_state, batch, labels):
    loss_value, grads = jax.value_and_grad(loss)(params, batch, labels)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    updates = jax.tree_util.tree_map(lambda u: u * extra_learning_rate, updates)
    params = jax.tree_util.tree_map(lambda p, u: p + u, params, updates)
    return params, opt_state, loss_value


def loss(params, batch, labels):
    return jnp.sum(params["w"] * batch) - jnp.sum(labels)


params = {"w": jnp.zeros(())}
opt_state = optimizer.init(params)
batch, labels = jnp.ones(()), jnp.zeros(())
for i in range(4):
    if i == 2:
        extra_learning_rate = 0.01
    old = params["w"]
    params, opt_state, loss_value = step(params, opt_state, batch, labels)
    print(i, extra_learning_rate, float(old - params["w"]))
