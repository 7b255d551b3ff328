# source: https://github.com/google-deepmind/mujoco/issues/1373
# expect: JAX101
# line: 44
# observed: jax 0.10.2 CPU: over 5 calls of the jitted step the debug print runs once, at trace time, and shows 'lin_vel_error: JitTracer(float32[])' instead of a number; the 5 steps themselves print nothing from inside step
# batch: 9
from typing import NamedTuple

import jax
import jax.numpy as jnp


class State(NamedTuple):
    pipeline_state: jax.Array  # qpos, qvel stacked
    obs: jax.Array
    reward: jax.Array
    info: dict


class BarkourEnv:
    def __init__(self, dt=0.02, tracking_sigma=0.25):
        self.dt = dt
        self._tracking_sigma = tracking_sigma
        self._default_pose = jnp.zeros(12)

    def reset(self, rng):
        q = self._default_pose + 0.01 * jax.random.normal(rng, (12,))
        qd = jnp.zeros(12)
        info = {"command": jnp.array([1.0, 0.0, 0.0]), "step": 0}
        return State(jnp.concatenate([q, qd]), jnp.concatenate([q, qd]), jnp.zeros(()), info)

    def step(self, state, action):
        q, qd = state.pipeline_state[:12], state.pipeline_state[12:]
        qd = qd + self.dt * (action - 0.1 * qd)
        q = q + self.dt * qd
        base_lin_vel = jnp.stack([qd[0], qd[1], qd[2]])
        reward = self._reward_tracking_lin_vel(state.info["command"], base_lin_vel)
        info = dict(state.info, step=state.info["step"] + 1)
        pipeline_state = jnp.concatenate([q, qd])
        return State(pipeline_state, pipeline_state, reward, info)

    def _reward_tracking_lin_vel(self, commands, base_lin_vel):
        # Tracking of linear velocity commands (xy axes)
        lin_vel_error = jnp.sum(jnp.square(commands[:2] - base_lin_vel[:2]))
        print("lin_vel_error:", lin_vel_error)
        lin_vel_reward = jnp.exp(-lin_vel_error / self._tracking_sigma)
        return lin_vel_reward


env = BarkourEnv()
jit_reset = jax.jit(env.reset)
jit_step = jax.jit(env.step)

state = jit_reset(jax.random.PRNGKey(0))
for i in range(5):
    state = jit_step(state, jnp.ones(12))
    print(i, float(state.reward))
