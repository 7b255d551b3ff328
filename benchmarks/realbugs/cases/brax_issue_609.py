# source: https://github.com/google/brax/issues/609
# expect: JAX102
# line: 72
# observed: jax 0.10.2 CPU: UnexpectedTracerError at line 44 when the evaluation step reads `self.sys.density`: the vmapped, jitted reset of the domain-randomization wrapper assigned its traced per-env System to `env.unwrapped.sys` (line 72), so after training the base environment holds a leaked BatchTracer (printed type: BatchTracer)
# batch: 13
import dataclasses
from typing import Callable, Tuple

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class System:
    density: jax.Array
    gravity: jax.Array

    def tree_replace(self, updates):
        return dataclasses.replace(self, **updates)


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class State:
    pos: jax.Array
    vel: jax.Array
    reward: jax.Array


class Env:
    def __init__(self, sys: System):
        self.sys = sys

    @property
    def unwrapped(self):
        return self

    def reset(self, rng):
        pos = jax.random.uniform(rng, (3,), minval=-0.1, maxval=0.1)
        return State(pos=pos, vel=jnp.zeros(3), reward=jnp.zeros(()))

    def step(self, state, action):
        acc = action / self.sys.density - self.sys.gravity
        vel = state.vel + 0.01 * acc
        pos = state.pos + 0.01 * vel
        return State(pos=pos, vel=vel, reward=-jnp.sum(pos**2))


class Wrapper(Env):
    def __init__(self, env: Env):
        self.env = env

    @property
    def unwrapped(self):
        return self.env.unwrapped

    @property
    def sys(self):
        return self.env.unwrapped.sys


class DomainRandomizationVmapWrapper(Wrapper):
    """Wrapper for domain randomization."""

    def __init__(self, env: Env, randomization_fn: Callable[[System], Tuple[System, System]]):
        super().__init__(env)
        self._sys_v, self._in_axes = randomization_fn(self.sys)

    def _env_fn(self, sys: System) -> Env:
        env = self.env
        env.unwrapped.sys = sys
        return env

    def reset(self, rng):
        def reset(sys, rng):
            env = self._env_fn(sys=sys)
            return env.reset(rng)

        return jax.vmap(reset, in_axes=[self._in_axes, 0])(self._sys_v, rng)

    def step(self, state, action):
        def step(sys, s, a):
            env = self._env_fn(sys=sys)
            return env.step(s, a)

        return jax.vmap(step, in_axes=[self._in_axes, 0, 0])(self._sys_v, state, action)


def randomization_fn(sys, num_envs=8):
    scale = jnp.linspace(0.9, 1.1, num_envs)
    sys_v = sys.tree_replace({"density": sys.density * scale})
    in_axes = System(density=0, gravity=None)
    return sys_v, in_axes


def train(environment, num_envs=8):
    env = DomainRandomizationVmapWrapper(environment, randomization_fn)
    reset_fn = jax.jit(env.reset)
    step_fn = jax.jit(env.step)
    state = reset_fn(jax.random.split(jax.random.PRNGKey(0), num_envs))
    for _ in range(10):
        state = step_fn(state, jnp.ones((num_envs, 3)))
    # no eval_env given: evaluate on the training environment, without randomization
    eval_env = environment
    eval_state = jax.jit(eval_env.reset)(jax.random.PRNGKey(1))
    return jax.jit(eval_env.step)(eval_state, jnp.ones(3))


environment = Env(System(density=jnp.array(1.0), gravity=jnp.array([0.0, 0.0, 9.81])))
try:
    train(environment)
except jax.errors.UnexpectedTracerError as e:
    print("UnexpectedTracerError:", str(e).splitlines()[0][:100])
print("environment.sys.density after training:", type(environment.sys.density).__name__)
