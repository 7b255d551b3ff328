# source: https://github.com/google-research/discs/issues/63
# expect: JAX804
# line: 56
# observed: jax 0.10.2 CPU: ValueError "vmap got inconsistent sizes for array axes to be mapped" at line 56: the per-model keys and states are split/tiled by the experiment config's `num_models` (8), the model parameters by the model config's `num_models` (1)
# batch: 14
import jax
import jax.numpy as jnp


class ConfigDict(dict):
    """Attribute access to a dict, as ml_collections.ConfigDict (not installed here)."""

    __getattr__ = dict.__getitem__


class MaxCutModel:
    def __init__(self, config):
        self.num_models = config.num_models
        self.num_nodes = config.num_nodes

    def make_default_params(self, rnd):
        keys = jax.random.split(rnd, self.num_models)
        weights = jax.vmap(lambda k: jax.random.bernoulli(k, 0.5, (self.num_nodes, self.num_nodes)).astype(jnp.float32))(keys)
        return {"edge_weight": weights}

    def energy(self, params, x):
        spins = 2.0 * x - 1.0
        return -0.25 * jnp.sum(params["edge_weight"] * (1.0 - jnp.outer(spins, spins)))


class RandomWalkSampler:
    def __init__(self, model):
        self.model = model

    def step(self, model_param, rng, x, state):
        k1, k2 = jax.random.split(rng)
        flip = jax.random.randint(k1, (), 0, x.shape[0])
        y = x.at[flip].set(1.0 - x[flip])
        accept = jnp.log(jax.random.uniform(k2)) < self.model.energy(model_param, x) - self.model.energy(model_param, y)
        return jnp.where(accept, y, x), state + accept, accept


class Experiment:
    def __init__(self, config):
        self.config = config

    def get_batch_keys(self, rng):
        return jax.random.split(rng, self.config.num_models)

    def run(self, model, sampler, model_param, rng):
        x = jnp.zeros((self.config.num_models, model.num_nodes))
        state = jnp.zeros(self.config.num_models)
        stp_burnin = jax.vmap(sampler.step, in_axes=(0, 0, 0, 0))
        for _ in range(self.config.burn_in):
            rng, step_rng = jax.random.split(rng)
            new_x, state, acc = stp_burnin(model_param, self.get_batch_keys(step_rng), x, state)
            x = new_x
        return x


exp_config = ConfigDict({"num_models": 8, "burn_in": 5})
model_config = ConfigDict({"num_models": 1, "num_nodes": 16})
model = MaxCutModel(model_config)
sampler = RandomWalkSampler(model)
experiment = Experiment(exp_config)
params = model.make_default_params(jax.random.PRNGKey(0))
print(experiment.run(model, sampler, params, jax.random.PRNGKey(1)).shape)
