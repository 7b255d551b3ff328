# source: https://github.com/mlcommons/algorithmic-efficiency/pull/672
# expect: JAX501
# line: 30
# observed: jax 0.10.2 CPU: with one key, the dropout mask is exactly (w < 0) for the (4, 8) weights drawn from it: bernoulli(rng, 0.5) == (normal(rng) < 0) elementwise
# batch: 2
import jax
import jax.numpy as jnp


class UNet:
    def __init__(self, channels=8, dropout_rate=0.5):
        self.channels = channels
        self.dropout_rate = dropout_rate

    def init(self, params_rng, dropout_rng, x):
        w = jax.random.normal(params_rng, (x.shape[-1], self.channels))
        # the init pass runs the model once, dropout included
        self.apply({"w": w}, x, dropout_rng)
        return {"w": w}

    def apply(self, params, x, dropout_rng):
        h = x @ params["w"]
        keep = jax.random.bernoulli(dropout_rng, 1.0 - self.dropout_rate, h.shape)
        return jnp.where(keep, h / (1.0 - self.dropout_rate), 0.0)


def model_init(rng, model):
    fake_batch = jnp.zeros((1, 4))
    # the same key for the parameters and for dropout
    variables = model.init(rng, rng, fake_batch)
    return variables


print(model_init(jax.random.PRNGKey(0), UNet()))
