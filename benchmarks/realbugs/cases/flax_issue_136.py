# source: https://github.com/google/flax/issues/136
# expect: JAX703
# line: 28
# observed: jax 0.10.2 CPU: no IndexError for token ids 100..102 with vocab_size 32: jnp.take fills out-of-range rows with NaN, so the model returns all-NaN logits silently (the report, on an older jnp.take that clamped, saw no error either)
# batch: 11
import jax
import jax.numpy as jnp


class TransformerLM:
    """A one-block decoder in the shape of the lm1b example: token embedding, attention, logits."""

    def __init__(self, key, vocab_size=32, emb_dim=16, max_len=8):
        k1, k2, k3 = jax.random.split(key, 3)
        self.vocab_size = vocab_size
        self.embedding = jax.random.normal(k1, (vocab_size, emb_dim))
        self.pos_embedding = 0.02 * jax.random.normal(k2, (max_len, emb_dim))
        self.qkv = jax.random.normal(k3, (emb_dim, 3 * emb_dim)) / jnp.sqrt(emb_dim)

    def attend(self, x):
        q, k, v = jnp.split(x @ self.qkv, 3, axis=-1)
        scores = q @ jnp.swapaxes(k, -1, -2) / jnp.sqrt(q.shape[-1])
        causal = jnp.tril(jnp.ones(scores.shape[-2:], bool))
        return jax.nn.softmax(jnp.where(causal, scores, -1e9), axis=-1) @ v

    def __call__(self, inputs):
        length = inputs.shape[1]
        x = jnp.take(self.embedding, inputs, axis=0)
        x = x + self.pos_embedding[:length]
        x = x + self.attend(x)
        return x @ self.embedding.T


model = TransformerLM(jax.random.PRNGKey(0), vocab_size=32)
in_vocab = model(jnp.array([[29, 30, 31]]))
out_of_vocab = model(jnp.array([[100, 101, 102]]))
print("logits for ids 100..102:", out_of_vocab[0, :, :3])
print("same as for ids 31, 31, 31:", jnp.allclose(out_of_vocab, model(jnp.array([[31, 31, 31]]))))
