# source: https://github.com/MichaelTMatthews/Craftax_Baselines/pull/9
# expect: JAX901
# line: 50
# observed: jax 0.10.2 CPU: the first env.step raises AttributeError: module 'jax' has no attribute 'tree_map' at line 50, while tracing AutoResetEnvWrapper.step under the batch wrapper's vmap (the PR replaces it with jax.tree.map)
# batch: 10
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp


class EnvState(NamedTuple):
    position: jax.Array
    time: jax.Array


class GridEnv:
    """A stand-in environment with the reset / step signature the wrappers expect."""

    max_steps = 20

    def reset(self, key):
        state = EnvState(jax.random.randint(key, (2,), 0, 8), jnp.zeros((), jnp.int32))
        return state.position.astype(jnp.float32), state

    def step(self, key, state, action):
        move = jnp.array([[0, 1], [1, 0], [0, -1], [-1, 0]])[action]
        position = jnp.clip(state.position + move, 0, 7)
        state = EnvState(position, state.time + 1)
        reward = (position == 7).all().astype(jnp.float32)
        done = (state.time >= self.max_steps) | (reward > 0)
        return position.astype(jnp.float32), state, reward, done, {}


class GymnaxWrapper:
    def __init__(self, env):
        self._env = env

    def __getattr__(self, name):
        return getattr(self._env, name)


class AutoResetEnvWrapper(GymnaxWrapper):
    @partial(jax.jit, static_argnums=(0,))
    def step(self, key, state, action):
        key, key_reset = jax.random.split(key)
        obs_st, state_st, reward, done, info = self._env.step(key, state, action)
        obs_re, state_re = self._env.reset(key_reset)
        state = jax.tree_map(lambda x, y: jax.lax.select(done, x, y), state_re, state_st)
        obs = jax.lax.select(done, obs_re, obs_st)
        return obs, state, reward, done, info


class BatchEnvWrapper(GymnaxWrapper):
    def __init__(self, env, num_envs):
        super().__init__(env)
        self.num_envs = num_envs

    @partial(jax.jit, static_argnums=(0,))
    def reset(self, key):
        return jax.vmap(self._env.reset)(jax.random.split(key, self.num_envs))

    @partial(jax.jit, static_argnums=(0,))
    def step(self, key, state, action):
        keys = jax.random.split(key, self.num_envs)
        return jax.vmap(self._env.step)(keys, state, action)


env = BatchEnvWrapper(AutoResetEnvWrapper(GridEnv()), num_envs=8)
key = jax.random.PRNGKey(0)
obs, state = env.reset(key)
for t in range(30):
    key, key_act, key_step = jax.random.split(key, 3)
    action = jax.random.randint(key_act, (8,), 0, 4)
    obs, state, reward, done, info = env.step(key_step, state, action)
print("time steps:", state.time)
