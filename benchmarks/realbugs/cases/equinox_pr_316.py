# source: https://github.com/patrick-kidger/equinox/pull/316
# expect: JAX501
# line: 36
# observed: jax 0.10.2 CPU: every token of the sequence gets the same dropout mask ([0 1 0 0 1 1 0 0] in all 4 rows; identical masks across the sequence: True): ff_key is broadcast to all positions before vmap
# batch: 11
import jax
import jax.numpy as jnp


def dropout(x, key, rate=0.5):
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)


class FeedForwardBlock:
    def __init__(self, key, hidden=8, intermediate=16):
        k1, k2 = jax.random.split(key)
        self.w1 = jax.random.normal(k1, (hidden, intermediate)) / jnp.sqrt(hidden)
        self.w2 = jax.random.normal(k2, (intermediate, hidden)) / jnp.sqrt(intermediate)

    def __call__(self, token, key):
        h = jax.nn.gelu(token @ self.w1)
        return token + dropout(h @ self.w2, key)


class TransformerLayer:
    """The BERT example's layer: the feed-forward block is applied per token with vmap."""

    def __init__(self, key):
        self.ff = FeedForwardBlock(key)

    def __call__(self, inputs, key):
        attn_key, ff_key = jax.random.split(key)
        attended = inputs  # attention omitted; its dropout would use attn_key
        seq_len = inputs.shape[0]
        ff_keys = jnp.broadcast_to(ff_key, (seq_len,) + ff_key.shape)
        return jax.vmap(self.ff)(attended, ff_keys)


layer = TransformerLayer(jax.random.PRNGKey(0))
tokens = jax.random.normal(jax.random.PRNGKey(2), (4, 8))
out = layer(tokens, jax.random.PRNGKey(1))
masks = out == tokens  # the residual is unchanged exactly where dropout zeroed the block's output
print("dropout mask per token:\n", masks.astype(int))
print("identical masks across the sequence:", bool(jnp.all(masks == masks[0])))
