# source: https://github.com/google-research/scenic/issues/709
# expect: JAX201
# line: 23
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 23 (`if self.rate == 0.0` in the dropout layer: the per-layer drop rates come from jnp.linspace inside the jitted model initialisation, so each rate is a tracer)
# batch: 12
import functools

import jax
import jax.numpy as jnp


class Dense:
    def __init__(self, key, n_in, n_out):
        self.kernel = jax.random.normal(key, (n_in, n_out)) * 0.02
        self.bias = jnp.zeros(n_out)


class StochasticDepthDropout:
    def __init__(self, rate):
        self.rate = rate

    def __call__(self, x, deterministic, rng):
        if self.rate == 0.0:
            return x
        if deterministic:
            return x
        keep = jax.random.bernoulli(rng, 1.0 - self.rate, (x.shape[0],) + (1,) * (x.ndim - 1))
        return jnp.where(keep, x / (1.0 - self.rate), 0.0)


class EncoderBlock:
    def __init__(self, key, hidden, droplayer_p):
        k1, k2 = jax.random.split(key)
        self.mlp_in = Dense(k1, hidden, 4 * hidden)
        self.mlp_out = Dense(k2, 4 * hidden, hidden)
        self.droplayer = StochasticDepthDropout(droplayer_p)

    def __call__(self, x, deterministic, rng):
        y = jax.nn.gelu(x @ self.mlp_in.kernel + self.mlp_in.bias)
        y = y @ self.mlp_out.kernel + self.mlp_out.bias
        return x + self.droplayer(y, deterministic, rng)


class MTVEncoder:
    """Multiview-transformer-style encoder: the stochastic-depth rate grows linearly with depth."""

    def __init__(self, key, num_layers, hidden, stochastic_droplayer_rate):
        droplayer_rates = jnp.linspace(0.0, stochastic_droplayer_rate, num_layers)
        keys = jax.random.split(key, num_layers)
        self.blocks = [EncoderBlock(keys[i], hidden, droplayer_rates[i]) for i in range(num_layers)]

    def __call__(self, x, deterministic, rng):
        for block, block_rng in zip(self.blocks, jax.random.split(rng, len(self.blocks))):
            x = block(x, deterministic, block_rng)
        return x


def _initialize_model(rng, input_spec, config):
    model = MTVEncoder(rng, config["num_layers"], config["hidden_size"], config["stochastic_droplayer_rate"])
    dummy_input = jnp.zeros(input_spec, jnp.float32)
    out = model(dummy_input, deterministic=True, rng=rng)
    return jax.tree_util.tree_map(jnp.shape, [b.mlp_in.kernel for b in model.blocks]), out.shape


def initialize_model(rng, input_spec, config):
    init_fn = jax.jit(functools.partial(_initialize_model, input_spec=input_spec, config=config), backend="cpu")
    return init_fn(rng)


config = {"num_layers": 4, "hidden_size": 32, "stochastic_droplayer_rate": 0.3}
shapes = initialize_model(jax.random.PRNGKey(0), (2, 16, 32), config)
print(shapes)
