# source: https://github.com/epignatelli/navix/pull/44
# expect: JAX704
# line: 34
# observed: jax 0.10.2 CPU: env.observation_space raises OverflowError at line 34 ("Python int 9223372036854775806 too large to convert to int32"): Discrete(sys.maxsize) turns sys.maxsize - 1 into a JAX array, and int32 cannot hold it without x64
# batch: 8
import sys
from dataclasses import dataclass

import jax
import jax.numpy as jnp

POS_INF = jnp.asarray(1e16)
NEG_INF = jnp.asarray(-1e16)


class Space:
    minimum = NEG_INF
    maximum = POS_INF

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype

    def __repr__(self):
        return "{}, min={}, max={})".format(
            type(self).__name__, self.minimum, self.maximum
        )


class Discrete(Space):
    def __init__(self, n_elements, shape=(), dtype=jnp.int32):
        super().__init__(shape, dtype)
        self.minimum = jnp.asarray(0)
        self.maximum = jnp.asarray(n_elements - 1)

    def sample(self, key):
        return jax.random.randint(key, self.shape, self.minimum, self.maximum, self.dtype)


def categorical(state):
    return state.grid


@dataclass
class Environment:
    height: int
    width: int
    observation_fn: callable = categorical

    @property
    def observation_space(self):
        if self.observation_fn == categorical:
            return Discrete(sys.maxsize, shape=(self.height, self.width))
        return Discrete(256, shape=(self.height, self.width, 3), dtype=jnp.uint8)


env = Environment(height=5, width=5)
space = env.observation_space
print(space, space.sample(jax.random.PRNGKey(0)))
