# source: https://github.com/vicariousinc/PGMax/issues/117
# expect: JAX908
# line: 16
# observed: jax 0.10.2 CPU: AttributeError "module 'jax' has no attribute 'partial'" at line 16, while the module loads (the decorator runs when the function is defined); the message passing below never starts
# batch: 16
"""Belief-propagation helpers: per-variable max over the messages of its factors."""
import functools

import jax
import jax.numpy as jnp
import numpy as np

NEG_INF = -1e20


@jax.partial(jax.jit, static_argnames="max_segment_length")
def segment_max_opt(data, segments_lengths, max_segment_length):
    """The max of each segment of `data`, where segment i holds `segments_lengths[i]` entries."""
    starts = jnp.cumsum(segments_lengths) - segments_lengths

    @functools.partial(jax.vmap, in_axes=(None, 0, 0), out_axes=0)
    def one_segment(data, start, length):
        window = jax.lax.dynamic_slice(
            jnp.pad(data, (0, max_segment_length)), (start,), (max_segment_length,))
        return jnp.max(jnp.where(jnp.arange(max_segment_length) < length, window, NEG_INF))

    return one_segment(data, starts, segments_lengths)


def normalize_max_zero(msgs, edges_num_states, max_num_states):
    """Shift each variable's messages so that their max is 0 (keeps the log-space messages bounded)."""
    maxes = segment_max_opt(msgs, edges_num_states, max_num_states)
    return msgs - jnp.repeat(maxes, edges_num_states, total_repeat_length=msgs.shape[0])


def run_bp(log_potentials, edges_num_states, num_iters=5, damping=0.5):
    msgs = jnp.zeros_like(log_potentials)
    max_num_states = int(np.max(edges_num_states))
    for _ in range(num_iters):
        new_msgs = normalize_max_zero(log_potentials + msgs, edges_num_states, max_num_states)
        msgs = damping * msgs + (1 - damping) * new_msgs
    return msgs


if __name__ == "__main__":
    edges_num_states = jnp.array([2, 3, 2])
    log_potentials = jax.random.normal(jax.random.key(0), (int(edges_num_states.sum()),))
    print(run_bp(log_potentials, edges_num_states))
