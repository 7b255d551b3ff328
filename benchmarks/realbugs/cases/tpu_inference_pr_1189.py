# source: https://github.com/vllm-project/tpu-inference/pull/1189
# expect: JAX502
# line: 54
# observed: jax 0.10.2 CPU: three samples of the same prompt at temperature 0.8 decode the identical tokens [10, 57, 14, 48, 14, 48, ...]: execute_model passes the runner's one rng_key to sample at every step, so temperature sampling never varies across samples
# batch: 10
from dataclasses import dataclass

import jax
import jax.numpy as jnp


@dataclass
class SamplingMetadata:
    temperature: jax.Array
    do_sampling: bool = True


@jax.jit
def sample(rng, logits, metadata):
    greedy = jnp.argmax(logits, axis=-1)
    sampled = jax.random.categorical(rng, logits / metadata.temperature[:, None], axis=-1)
    return jnp.where(metadata.temperature > 0, sampled, greedy)


jax.tree_util.register_pytree_node(
    SamplingMetadata, lambda m: ((m.temperature,), m.do_sampling), lambda aux, ch: SamplingMetadata(ch[0], aux))


def model_forward(params, input_ids, positions):
    h = params["embed"][input_ids] + params["pos"][positions]
    return jnp.tanh(h) @ params["lm_head"]


class TPUModelRunner:
    def __init__(self, vocab_size=64, hidden=32, max_len=64, seed=0):
        k1, k2, k3 = jax.random.split(jax.random.key(1234), 3)
        self.params = {
            "embed": jax.random.normal(k1, (vocab_size, hidden)),
            "pos": 0.1 * jax.random.normal(k2, (max_len, hidden)),
            "lm_head": jax.random.normal(k3, (hidden, vocab_size)),
        }
        self.rng_key = jax.random.key(seed)
        self.model_fn = jax.jit(model_forward)

    def _prepare_inputs(self, requests):
        input_ids = jnp.array([r["tokens"][-1] for r in requests])
        positions = jnp.array([len(r["tokens"]) - 1 for r in requests])
        temperature = jnp.array([r["temperature"] for r in requests], dtype=jnp.float32)
        return input_ids, positions, SamplingMetadata(temperature)

    def execute_model(self, requests):
        input_ids, positions, sampling_metadata = self._prepare_inputs(requests)
        logits = self.model_fn(self.params, input_ids, positions)
        next_tokens = sample(self.rng_key, logits, sampling_metadata)
        for r, t in zip(requests, next_tokens.tolist()):
            r["tokens"].append(t)
        return next_tokens


runner = TPUModelRunner()
for attempt in range(3):
    request = {"tokens": [5, 17, 3], "temperature": 0.8}
    for step in range(10):
        runner.execute_model([request])
    print("sample", attempt, request["tokens"][3:])
