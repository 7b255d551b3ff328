"""What objects hold and what call sites pass: each `# expect:` line is a finding;
`RUNS` and `RAISES` are checked under real JAX by tests/test_value_model.py."""
from dataclasses import dataclass
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


class Sampler:
    """`self.name` holds what every `self.name = ...` of the class assigns."""

    def __init__(self, capacity):
        self.weights = np.ones(4) / 4  # a NumPy array
        self.levels = [8, 16, 32]  # a list
        self.scale = 2.0  # a Python number: static, fine in `if`
        self.table = jnp.arange(4.0)  # a JAX array takes a traced index
        self.count = jax.jit(self._count, static_argnums=0)
        self.jitted = {"weight": jax.jit(self.weight), "level": jax.jit(self.level),
                       "lookup": jax.jit(self.lookup)}

    def _count(self, n):
        return n * 2

    def weight(self, idx):
        return self.weights[idx]  # expect: JAX204

    def level(self, i):
        return self.levels[i]  # expect: JAX203

    def lookup(self, i):
        if self.scale > 1:
            return self.table[i] * self.scale
        return self.table[i]

    @partial(jax.jit, static_argnums=(0, 1))
    def buffer(self, n):
        return jnp.zeros(self.count(n))  # expect: JAX207


class Reloadable:
    """Set again from an argument of unknown sort: not known to be NumPy."""

    def __init__(self):
        self.weights = np.ones(4)
        self.jitted_weight = jax.jit(self.weight)

    def load(self, weights):
        self.weights = weights

    def weight(self, idx):
        return self.weights[idx]


LEVELS = np.linspace(0.0, 1.0, 4)
BUFFER = np.zeros(4)


def gather(table, i):
    return table[i]  # expect: JAX204


@jax.jit
def level_at(i):
    return gather(LEVELS, i)


def refill(values):
    global BUFFER
    BUFFER = values  # may be a JAX array now


@jax.jit
def buffered(i):
    return BUFFER[i]  # refill() is never called between two calls: not stale (JAX103)


@jax.jit
def pick(schedule, step):
    return schedule[step]  # expect: JAX203


@jax.jit
def pick_any(table, step):
    return table[step]


def train(steps):
    out = []
    for step in range(steps):
        out.append(pick([1e-3, 5e-4, 1e-4], step % 3))
        out.append(pick_any(jnp.ones(3), step % 3))
    return out


class Clipper:
    def __init__(self, limit):
        self.limit = limit

    def clip(self, g):
        if g > self.limit:  # expect: JAX201
            return g * 0.5
        return g


@jax.jit
def clipped_update(params, grads):
    clipper = Clipper(1.0)
    return params - clipper.clip(grads)


@dataclass
class Config:
    hidden: int


@dataclass(frozen=True)
class FrozenConfig:
    hidden: int


@partial(jax.jit, static_argnums=1)
def widen(x, config):
    return x * config.hidden


def build(x):
    return widen(x, FrozenConfig(2)), widen(x, Config(2))  # expect: JAX404


def fresh_sampler():
    reloadable = Reloadable()
    reloadable.load(jnp.ones(4))
    return reloadable


RUNS = {
    "lookup": lambda: Sampler(4).jitted["lookup"](1),
    "reloadable": lambda: fresh_sampler().jitted_weight(1),
    "pick_any": lambda: pick_any(jnp.ones(3), 1),
    "frozen": lambda: widen(jnp.ones(2), FrozenConfig(2)),
    "buffered": lambda: (refill(jnp.ones(4)), buffered(1)),
}

RAISES = {
    "weight": (lambda: Sampler(4).jitted["weight"](1), "TracerArrayConversionError"),
    "level": (lambda: Sampler(4).jitted["level"](1), "TracerIntegerConversionError"),
    "buffer": (lambda: Sampler(4).buffer(3), "TypeError"),
    "train": (lambda: train(2), "TracerIntegerConversionError"),
    "build": (lambda: build(jnp.ones(2)), "ValueError"),
    "level_at": (lambda: level_at(1), "TracerArrayConversionError"),
    "clipped_update": (lambda: clipped_update(1.0, 2.0), "TracerBoolConversionError"),
}
