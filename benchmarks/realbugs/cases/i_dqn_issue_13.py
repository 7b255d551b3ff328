# source: https://github.com/theovincent/i-DQN/issues/13
# expect: JAX501,JAX503
# line: 66
# observed: jax 0.10.2 CPU: the key that best_action splits to pick a head at step t is the key the schedule splits at step t+1 to decide whether to explore, so the head choice and the next exploration draw come from the same subkey (printed: True at every greedy step)
# batch: 12
from functools import partial

import jax
import jax.numpy as jnp


class ExplorationSchedule:
    def __init__(self, key, start_epsilon=1.0, end_epsilon=0.05, duration=50):
        self.key = key
        self.start_epsilon, self.end_epsilon, self.duration = start_epsilon, end_epsilon, duration
        self.n_steps = 0
        self.last_explore_key = None

    def explore(self):
        self.n_steps += 1
        self.key, key = jax.random.split(self.key)
        self.last_explore_key = key
        fraction = min(self.n_steps / self.duration, 1.0)
        epsilon = self.start_epsilon + fraction * (self.end_epsilon - self.start_epsilon)
        return bool(jax.random.uniform(key) < epsilon)


class iDQN:
    def __init__(self, n_actions, n_heads, obs_dim, key):
        self.n_actions, self.n_heads = n_actions, n_heads
        self.params = jax.random.normal(key, (n_heads, obs_dim, n_actions)) * 0.1
        self.last_head_key = None

    @partial(jax.jit, static_argnames="self")
    def random_action(self, key):
        return jax.random.choice(key, jnp.arange(self.n_actions))

    @partial(jax.jit, static_argnames="self")
    def _best_action(self, params, state, key):
        _, head_key = jax.random.split(key)
        head = jax.random.randint(head_key, (), 0, self.n_heads)
        return jnp.argmax(state @ params[head]), head_key

    def best_action(self, params, state, key):
        action, self.last_head_key = self._best_action(params, state, key)
        return action


class Env:
    def __init__(self, key, obs_dim):
        self.key, self.obs_dim = key, obs_dim

    def step(self, action):
        self.key, key = jax.random.split(self.key)
        return jax.random.normal(key, (self.obs_dim,)), float(action == 1)


class AtariEnvLoop:
    def __init__(self, q, env, exploration_schedule):
        self.q, self.env, self.exploration_schedule = q, env, exploration_schedule
        self.state = jnp.zeros(env.obs_dim)

    def collect_sample(self):
        if self.exploration_schedule.explore():
            action = self.q.random_action(self.exploration_schedule.key)
        else:
            action = self.q.best_action(self.q.params, self.state, self.exploration_schedule.key)
        self.state, reward = self.env.step(action)
        return reward


k_q, k_env, k_explore = jax.random.split(jax.random.PRNGKey(0), 3)
loop = AtariEnvLoop(iDQN(4, 5, 6, k_q), Env(k_env, 6), ExplorationSchedule(k_explore, duration=5))
shared = []
for t in range(20):
    loop.collect_sample()
    head_key = loop.q.last_head_key
    loop.q.last_head_key = None
    if head_key is not None:
        loop.exploration_schedule.explore()
        shared.append(bool(jnp.all(head_key == loop.exploration_schedule.last_explore_key)))
print("head key at step t is the exploration key at step t+1:", shared)
