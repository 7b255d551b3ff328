# source: https://github.com/nissymori/mahjax/pull/72
# expect: JAX501
# observed: jax 0.10.2 CPU: the second-hand walls of seeds 0 and 424242 are identical (printed: True) while the first-hand walls differ: `_init` splits `subkey` off the init key but never stores it, so `rng_key` keeps the dataclass default `PRNGKey(0)` and every reshuffle in `_next_round` derives from that one constant key
# batch: 14
from dataclasses import dataclass, field, replace

import jax
import jax.numpy as jnp

NUM_TILES = 136


@dataclass(frozen=True)
class RoundState:
    wall: jnp.ndarray = field(default_factory=lambda: jnp.arange(NUM_TILES))
    dealer: int = 0
    round: int = 0
    rng_key: jnp.ndarray = field(default_factory=lambda: jax.random.PRNGKey(0))


def _make_state(wall, dealer, **kwargs):
    return RoundState(wall=wall, dealer=dealer, **kwargs)


def _init(rng):
    rng, subkey = jax.random.split(rng)
    k_dealer, k_wall = jax.random.split(rng)
    dealer = int(jax.random.randint(k_dealer, (), 0, 4))
    wall = jax.random.permutation(k_wall, NUM_TILES)
    return _make_state(wall, dealer)


def _next_round(state: RoundState) -> RoundState:
    rng, k_wall = jax.random.split(state.rng_key)
    wall = jax.random.permutation(k_wall, NUM_TILES)
    return replace(state, wall=wall, round=state.round + 1, rng_key=rng)


class MahjongEnv:
    def init(self, key):
        return _init(key)

    def step(self, state, key=None):
        # the hand ends; `key` is ignored, the next wall comes from the state's own key
        return _next_round(state)


env = MahjongEnv()
s0 = env.init(jax.random.PRNGKey(0))
s1 = env.init(jax.random.PRNGKey(424242))
print("first walls equal:", bool(jnp.array_equal(s0.wall, s1.wall)))
s0, s1 = env.step(s0), env.step(s1)
print("second walls equal:", bool(jnp.array_equal(s0.wall, s1.wall)))
