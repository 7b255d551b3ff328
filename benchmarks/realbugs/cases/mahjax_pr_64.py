# source: https://github.com/nissymori/mahjax/pull/64
# expect: JAX901
# line: 47
# observed: jax 0.10.2 CPU: AttributeError at line 47: module 'jax' has no attribute 'tree_map' (removed in JAX 0.6.0); the example crashes on its first update
# batch: 9
from typing import NamedTuple

import jax
import jax.numpy as jnp


class Transition(NamedTuple):
    obs: jax.Array
    action: jax.Array
    reward: jax.Array
    done: jax.Array
    log_prob: jax.Array
    value: jax.Array


NUM_ENVS = 8
NUM_STEPS = 16
MINIBATCH_SIZE = 32


def env_step(key, obs):
    action = jax.random.randint(key, (NUM_ENVS,), 0, 34)
    reward = (action == 0).astype(jnp.float32)
    next_obs = jnp.roll(obs, 1, axis=-1)
    return next_obs, action, reward, jnp.zeros(NUM_ENVS, bool)


def rollout(key, obs):
    def step(carry, key):
        obs = carry
        next_obs, action, reward, done = env_step(key, obs)
        t = Transition(obs, action, reward, done, jnp.zeros(NUM_ENVS), jnp.zeros(NUM_ENVS))
        return next_obs, t

    keys = jax.random.split(key, NUM_STEPS)
    return jax.lax.scan(step, obs, keys)


def make_minibatches(key, traj):
    batch_size = NUM_STEPS * NUM_ENVS
    permutation = jax.random.permutation(key, batch_size)
    flat = jax.tree_map(lambda x: x.reshape((batch_size,) + x.shape[2:]), traj)
    shuffled = jax.tree_util.tree_map(lambda x: jnp.take(x, permutation, axis=0), flat)
    return jax.tree_util.tree_map(lambda x: x.reshape((-1, MINIBATCH_SIZE) + x.shape[1:]), shuffled)


@jax.jit
def update(key, obs):
    key_roll, key_perm = jax.random.split(key)
    obs, traj = rollout(key_roll, obs)
    minibatches = make_minibatches(key_perm, traj)
    return obs, jnp.mean(minibatches.reward)


obs = jnp.zeros((NUM_ENVS, 34))
obs, mean_reward = update(jax.random.PRNGKey(0), obs)
print(mean_reward)
