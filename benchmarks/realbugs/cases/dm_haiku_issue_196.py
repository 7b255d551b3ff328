# source: https://github.com/google-deepmind/dm-haiku/issues/196
# expect: JAX403
# line: 78
# observed: jax 0.10.2 CPU: 12 traces (and compilations) of the jitted `update` in 3 generations, one per Updater instance (6 in the first generation, then the 3 new children trained in each later one), and 6 of `init`: `self` is a static argument hashed by identity, so every new member of the population recompiles both methods
# batch: 13
import functools
from typing import Any, Mapping

import jax
import jax.numpy as jnp
import numpy as np

TRACES = []
POPULATION_SIZE = 6
GENERATIONS = 3


def net_init(rng, data):
    k1, k2 = jax.random.split(rng)
    return {"w1": jax.random.normal(k1, (data["x"].shape[-1], 32)) * 0.1,
            "w2": jax.random.normal(k2, (32, 1)) * 0.1}


def net_apply(params, x):
    return jnp.tanh(x @ params["w1"]) @ params["w2"]


def loss_fn(params, rng, data):
    return jnp.mean((net_apply(params, data["x"]) - data["y"]) ** 2)


class Updater:
    """A stateless abstraction around an init_fn/update_fn pair (the transformer example's)."""

    def __init__(self, net_init, loss_fn, learning_rate=1e-2):
        self._net_init = net_init
        self._loss_fn = loss_fn
        self._lr = learning_rate

    @functools.partial(jax.jit, static_argnums=0)
    def init(self, master_rng, data):
        TRACES.append("init")
        out_rng, init_rng = jax.random.split(master_rng)
        params = self._net_init(init_rng, data)
        return dict(step=np.array(0), rng=out_rng, params=params)

    @functools.partial(jax.jit, static_argnums=0)
    def update(self, state: Mapping[str, Any], data: Mapping[str, jnp.ndarray]):
        TRACES.append("update")
        rng, new_rng = jax.random.split(state["rng"])
        loss, g = jax.value_and_grad(self._loss_fn)(state["params"], rng, data)
        params = jax.tree_util.tree_map(lambda p, d: p - self._lr * d, state["params"], g)
        new_state = {"step": state["step"] + 1, "rng": new_rng, "params": params}
        return new_state, {"step": state["step"], "loss": loss}


def crossover(rng, parent_a, parent_b):
    leaves, treedef = jax.tree_util.tree_flatten(parent_a)
    keys = jax.random.split(rng, len(leaves))
    masks = treedef.unflatten([jax.random.bernoulli(k, 0.5, p.shape) for k, p in zip(keys, leaves)])
    return jax.tree_util.tree_map(jnp.where, masks, parent_a, parent_b)


def main():
    rng = jax.random.PRNGKey(428)
    x = jax.random.normal(jax.random.PRNGKey(0), (64, 8))
    data = {"x": x, "y": jnp.sin(x.sum(-1, keepdims=True))}
    population = []
    for _ in range(POPULATION_SIZE):
        rng, init_rng = jax.random.split(rng)
        updater = Updater(net_init, loss_fn)
        population.append((updater, updater.init(init_rng, data)))

    for generation in range(GENERATIONS):
        scored = []
        for updater, state in population:
            for step in range(5):
                state, metrics = updater.update(state, data)
            scored.append((float(metrics["loss"]), updater, state))
        scored.sort(key=lambda t: t[0])
        parents = scored[: POPULATION_SIZE // 2]
        population = [(u, s) for _, u, s in parents]
        for (_, _, sa), (_, _, sb) in zip(parents, parents[1:] + parents[:1]):
            rng, cross_rng = jax.random.split(rng)
            child = Updater(net_init, loss_fn)
            child_state = dict(sa, params=crossover(cross_rng, sa["params"], sb["params"]))
            population.append((child, child_state))
        print("generation", generation, "best loss", scored[0][0])
    print("traces of update:", TRACES.count("update"), "init:", TRACES.count("init"))


main()
