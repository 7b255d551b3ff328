# source: https://github.com/magenta/mt3/pull/72
# expect: JAX901
# line: 14
# observed: jax 0.10.2 CPU: AttributeError at line 14
# batch: 4
import jax
import jax.numpy as jnp


def average_checkpoints(params_list):
    """Average several checkpoints of the transcription model, leaf by leaf."""
    total = params_list[0]
    for params in params_list[1:]:
        total = jax.tree_multimap(lambda a, b: a + b, total, params)
    return jax.tree_util.tree_map(lambda x: x / len(params_list), total)


ckpt = {"encoder": {"kernel": jnp.ones((2, 2))}, "decoder": {"bias": jnp.zeros(2)}}
print(average_checkpoints([ckpt, ckpt]))
