# source: https://github.com/SlopDotCash/asi/issues/160
# expect: JAX503,JAX501
# line: 51
# observed: jax 0.10.2 CPU: the candidate key of dream i+1 is bit-for-bit the key that drew dream i's first imagined action (printed: True for every consecutive pair): after `key, candidate_key = jr.split(key)` the post-split `key` both seeds the rollout's behaviour chain and is carried to the next dream, which splits it again
# batch: 12
from typing import NamedTuple

import jax
import jax.numpy as jnp
import jax.random as jr


class BehaviorState(NamedTuple):
    rng_key: jax.Array
    temperature: jax.Array


def sample_action(behavior_state, obs, policy_w):
    rng_key, sample_key = jr.split(behavior_state.rng_key)
    logits = obs @ policy_w / behavior_state.temperature
    action = jr.categorical(sample_key, logits)
    return action, sample_key, behavior_state._replace(rng_key=rng_key)


def model_step(obs, action, world_w):
    return jnp.tanh(obs @ world_w[action])


def dream_rollout(params, anchor, behavior_state, horizon):
    def body(carry, _):
        obs, bstate = carry
        action, sample_key, bstate = sample_action(bstate, obs, params["policy"])
        obs = model_step(obs, action, params["world"])
        return (obs, bstate), (action, sample_key)

    (_, final_bstate), (actions, sample_keys) = jax.lax.scan(body, (anchor, behavior_state), None, length=horizon)
    return actions, sample_keys, final_bstate


def propose_candidate(candidate_key, obs_dim):
    return jr.normal(candidate_key, (obs_dim,))


@jax.jit
def step9_update(params, behavior_state, key, planning_budget=4, horizon=3):
    obs_dim = params["policy"].shape[0]

    def dream_step(carry, _):
        key, accepted = carry
        key, candidate_key = jr.split(key)
        anchor = propose_candidate(candidate_key, obs_dim)
        initial_behavior_state = behavior_state._replace(rng_key=key)
        actions, sample_keys, _ = dream_rollout(params, anchor, initial_behavior_state, horizon)
        accepted = accepted + jnp.sum(actions == 0)
        return (key, accepted), (candidate_key, sample_keys[0])

    (key, accepted), (candidate_keys, first_sample_keys) = jax.lax.scan(
        dream_step, (key, jnp.array(0)), None, length=planning_budget)
    return key, accepted, candidate_keys, first_sample_keys


k_p, k_w, k_run = jr.split(jr.key(7), 3)
params = {"policy": jr.normal(k_p, (5, 3)), "world": jr.normal(k_w, (3, 5, 5)) * 0.5}
behavior_state = BehaviorState(rng_key=jr.key(0), temperature=jnp.array(1.0))
_, accepted, candidate_keys, first_sample_keys = step9_update(params, behavior_state, k_run)
same = jr.key_data(candidate_keys[1:]) == jr.key_data(first_sample_keys[:-1])
print("dream i+1 candidate key == dream i first action key:", [bool(s) for s in jnp.all(same, axis=-1)])
