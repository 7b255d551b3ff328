"""Realistic parameters: a registered dataclass state, a list of layer dicts, and a params dict
with a batch tuple that only the module's own call (under __main__) shows."""
import dataclasses
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.tree_util.register_dataclass, data_fields=["params", "step"], meta_fields=[])
@dataclasses.dataclass
class TrainState:
    params: jax.Array
    step: jax.Array


@jax.jit
def update(state: TrainState, lr):
    if state.step > 10:
        return state
    return state


@jax.jit
def mlp(layers, x):
    for layer in layers:
        x = x @ layer["w"] + layer["b"]
    if x.sum() > 0:
        return x
    return -x


def init(key, n):
    return {"w": jax.random.normal(key, (n, n)), "b": jnp.zeros(n)}


@jax.jit
def loss(params, batch):
    x, y = batch
    pred = x @ params["w"] + params["b"]
    if pred.mean() > y.mean():
        return 1.0
    return 0.0


if __name__ == "__main__":
    key = jax.random.PRNGKey(0)
    params = init(key, 3)
    batch = (jnp.ones((5, 3)), jnp.ones(5))
    print(loss(params, batch))
