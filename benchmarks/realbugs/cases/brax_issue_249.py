# source: https://github.com/google/brax/issues/249
# expect: JAX302
# line: 61
# observed: jax 0.10.2 CPU: after reset_to_buffer_state(...) the environment's qp.pos is still [[0. 0. 0.] [1. 0. 0.]] (the reset pose), not the buffered [[0.5 0.5 0.5] [1.5 0.5 0.5]]: each .at[:].set(...) returns a new array that is thrown away
# batch: 9
from typing import NamedTuple

import jax
import jax.numpy as jnp


class QP(NamedTuple):
    pos: jax.Array
    rot: jax.Array
    vel: jax.Array
    ang: jax.Array


class State(NamedTuple):
    qp: QP
    obs: jax.Array
    reward: jax.Array
    done: jax.Array


class Env:
    def reset(self, rng):
        qp = QP(jnp.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]), jnp.tile(jnp.array([1.0, 0, 0, 0]), (2, 1)),
                jnp.zeros((2, 3)), jnp.zeros((2, 3)))
        return State(qp, jnp.concatenate([qp.pos.ravel(), qp.vel.ravel()]), jnp.zeros(()), jnp.zeros(()))

    def step(self, state, action):
        qp = state.qp._replace(vel=state.qp.vel + 0.01 * action, pos=state.qp.pos + 0.01 * state.qp.vel)
        return state._replace(qp=qp, obs=jnp.concatenate([qp.pos.ravel(), qp.vel.ravel()]))


class GymWrapper:
    def __init__(self, env, seed=0):
        self.env = env
        self._key = jax.random.PRNGKey(seed)
        self._reset = jax.jit(env.reset)
        self._step = jax.jit(env.step)
        self._state = None

    def reset(self):
        self._state = self._reset(self._key)
        return self._state.obs

    def step(self, action):
        self._state = self._step(self._state, action)
        return self._state.obs


class ReplayBuffer:
    def __init__(self, qp_buf):
        self.qp_buf = qp_buf


def reset_to_buffer_state(env, replay_buffer, idx):
    env.reset()
    env._state.qp.pos.at[:].set(replay_buffer.qp_buf[idx].pos[:])
    env._state.qp.rot.at[:].set(replay_buffer.qp_buf[idx].rot[:])
    env._state.qp.vel.at[:].set(replay_buffer.qp_buf[idx].vel[:])
    env._state.qp.ang.at[:].set(replay_buffer.qp_buf[idx].ang[:])
    return env._state.obs


env = GymWrapper(Env())
first = env._reset(env._key).qp
buffer = ReplayBuffer([QP(first.pos + 0.5, first.rot, first.vel + 1.0, first.ang)])
reset_to_buffer_state(env, buffer, 0)
print(env._state.qp.pos)
print(buffer.qp_buf[0].pos)
