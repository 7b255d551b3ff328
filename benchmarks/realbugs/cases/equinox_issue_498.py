# source: https://github.com/patrick-kidger/equinox/issues/498
# expect: JAX502
# observed: jax 0.10.2 CPU: identical outputs on all 3 calls ([ 1.959544 -6.206605]): the same dropout mask; __call__ also compiled 3 times
# batch: 2
import jax
import jax.numpy as jnp


class DropoutMLP:
    """The dropout key is stored on the model instead of being passed to each call."""

    def __init__(self, key, in_size=4, out_size=2, p=0.5):
        wkey, self.dropout_key = jax.random.split(key)
        self.weight = jax.random.normal(wkey, (in_size, out_size))
        self.p = p

    def __call__(self, x):
        keep = jax.random.bernoulli(self.dropout_key, 1.0 - self.p, x.shape)
        return jnp.where(keep, x / (1.0 - self.p), 0.0) @ self.weight


def train(model, xs):
    for x in xs:
        y = jax.jit(model.__call__)(x)
        print(y)


train(DropoutMLP(jax.random.PRNGKey(0)), [jnp.ones(4)] * 3)
