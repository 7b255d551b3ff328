# source: https://github.com/google-research/long-range-arena/issues/7
# expect: JAX404
# line: 63
# observed: jax 0.10.2 CPU: ValueError at line 63 (the call of `create_model_fn` inside get_model, reached from main at line 77): Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'dict'>, {'vocab_size': 20, ...}: the model kwargs dict is static argument 3 of the jitted create_model
# batch: 12
import functools

import jax
import jax.numpy as jnp
from jax import random


class TransformerEncoder:
    """A classifier in the shape of the old flax.nn modules: `partial(**kwargs)` binds the
    hyperparameters, `init_by_shape` draws the parameters."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    @classmethod
    def partial(cls, **kwargs):
        return cls(**kwargs)

    def init_by_shape(self, key, input_specs):
        (shape, dtype), = input_specs
        k = self.kwargs
        keys = random.split(key, 2 + k["num_layers"])
        params = {
            "embed": random.normal(keys[0], (k["vocab_size"], k["emb_dim"])) * 0.02,
            "layers": [random.normal(kl, (k["emb_dim"], k["mlp_dim"])) * 0.02 for kl in keys[2:]],
            "head": random.normal(keys[1], (k["emb_dim"], k["num_classes"])) * 0.02,
        }
        return self.apply(params, jnp.zeros(shape, jnp.int32)), params

    def apply(self, params, inputs):
        x = params["embed"][inputs]
        for w in params["layers"]:
            x = x + jax.nn.gelu(x @ w) @ w.T
        return jnp.mean(x, axis=1) @ params["head"]


class Model:
    def __init__(self, module, params):
        self.module, self.params = module, params

    def __call__(self, inputs):
        return self.module.apply(self.params, inputs)


jax.tree_util.register_pytree_node(Model, lambda m: ((m.params,), m.module), lambda mod, c: Model(mod, c[0]))


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def create_model(key, flax_module, input_shape, model_kwargs):
    module = flax_module.partial(**model_kwargs)
    _, initial_params = module.init_by_shape(key, [(input_shape, jnp.float32)])
    return Model(module, initial_params)


def get_model(model_type, create_model_fn, model_kwargs, *create_model_args):
    """lra_benchmarks/utils/train_utils.py: pick the module class, then build it."""
    if model_type == "transformer":
        return create_model_fn(*create_model_args[:1], TransformerEncoder, *create_model_args[1:], model_kwargs)
    raise ValueError(f"unknown model type {model_type}")


def main(config):
    model_kwargs = dict(config.get("model_kwargs", {}))
    model_kwargs.update({
        "vocab_size": 20, "emb_dim": config["emb_dim"], "num_heads": config["num_heads"],
        "num_layers": config["num_layers"], "mlp_dim": config["mlp_dim"], "max_len": config["max_length"],
        "classifier": True, "num_classes": 10,
    })
    rng = random.PRNGKey(config["random_seed"])
    rng, init_rng = random.split(rng)
    input_shape = (config["batch_size"], config["max_length"])
    model = get_model(config["model_type"], create_model, model_kwargs, init_rng, input_shape)
    return model(jnp.ones(input_shape, jnp.int32))


config = {"model_type": "transformer", "emb_dim": 32, "num_heads": 4, "num_layers": 2, "mlp_dim": 64,
          "max_length": 16, "batch_size": 8, "random_seed": 0}
print(main(config).shape)
