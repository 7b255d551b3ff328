# source: https://github.com/AI-Hypercomputer/maxtext/pull/946
# expect: JAX502
# line: 47
# observed: jax 0.10.2 CPU: with weighted sampling both requests decode the identical tokens [1 x12] and [25, 16 x11]: generate samples every step (and every request) with the engine's fixed self.rng, so the Gumbel noise is the same at each step and decoding falls into a fixed point
# batch: 10
import functools

import jax
import jax.numpy as jnp


class Config:
    vocab_size = 32
    emb_dim = 16
    decode_sampling_strategy = "weighted"
    decode_sampling_temperature = 1.0


def sampling(logits, rng, algorithm, temperature=1.0):
    if algorithm == "greedy":
        return jnp.argmax(logits, axis=-1)
    if algorithm == "weighted":
        return jax.random.categorical(rng, logits / temperature)
    raise ValueError(algorithm)


class MaxEngine:
    def __init__(self, config):
        self.config = config
        self.rng = jax.random.PRNGKey(0)

    def load_params(self, rng):
        k1, k2 = jax.random.split(rng)
        return {
            "embedding": jax.random.normal(k1, (self.config.vocab_size, self.config.emb_dim)),
            "unembed": 0.3 * jax.random.normal(k2, (self.config.emb_dim, self.config.vocab_size)),
        }

    def init_decode_state(self, prompt_tokens):
        return {"last_token": prompt_tokens[:, -1], "step": jnp.zeros((), jnp.int32)}

    @functools.partial(jax.jit, static_argnums=(0,))
    def generate(self, params, decode_state):
        hidden = params["embedding"][decode_state["last_token"]]
        logits = hidden @ params["unembed"]
        config = self.config
        new_token = sampling(logits, self.rng, config.decode_sampling_strategy, config.decode_sampling_temperature)
        new_state = {"last_token": new_token, "step": decode_state["step"] + 1}
        return new_state, new_token


engine = MaxEngine(Config())
params = engine.load_params(jax.random.PRNGKey(42))
prompts = jnp.array([[3, 7, 1], [5, 2, 9]])
for request in range(2):
    decode_state = engine.init_decode_state(prompts)
    tokens = []
    for step in range(12):
        decode_state, new_token = engine.generate(params, decode_state)
        tokens.append(new_token)
    print("request", request, jnp.stack(tokens, axis=1).tolist())
