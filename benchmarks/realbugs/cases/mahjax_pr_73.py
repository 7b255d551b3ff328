# source: https://github.com/nissymori/mahjax/pull/73
# expect: JAX501
# line: 55
# observed: jax 0.10.2 CPU: with jax.debug_key_reuse(True) and a typed key, `env.init` raises KeyReuseError at line 55: the dealer (randint) and the wall (permutation) are both drawn from the post-split `rng` (`subkey` is never used), so the dealer is a function of the same bits as the wall; without the check the 1024 vmapped tables deal silently
# batch: 13
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp

TRUE = jnp.bool_(True)


class GameConfig(NamedTuple):
    red_fives: bool = True


class State(NamedTuple):
    current_player: jax.Array
    dealer: jax.Array
    deck: jax.Array
    hand: jax.Array
    dora_indicators: jax.Array
    next_deck_ix: jax.Array
    rng_key: jax.Array


class Tile:
    @staticmethod
    def from_tile_id_to_tile(tile_id):
        return tile_id // 4


class Hand:
    @staticmethod
    def make_init_hand(deck):
        return jnp.stack([jnp.bincount(deck[13 * p:13 * (p + 1)], length=34) for p in range(4)])


def _apply_red_five_config(deck, game_config):
    return deck


def _make_state(**kwargs):
    kwargs.setdefault("rng_key", jax.random.PRNGKey(0))
    return State(**kwargs)


def _init(rng, game_config: Optional[GameConfig] = None) -> State:
    """
    Initialize the state.
    """
    rng, subkey = jax.random.split(rng)
    current_player = jnp.int8(jax.random.randint(rng, (), 0, 4))
    deck = Tile.from_tile_id_to_tile(jax.random.permutation(rng, jnp.arange(136))).astype(jnp.int8)
    deck = _apply_red_five_config(deck, game_config)
    init_hand = Hand.make_init_hand(deck)
    dora_indicators = jnp.array([deck[9], -1, -1, -1, -1], dtype=jnp.int8)
    return _make_state(current_player=current_player, dealer=current_player, deck=deck, hand=init_hand,
                       dora_indicators=dora_indicators, next_deck_ix=jnp.int32(135))


class RedMahjong:
    def __init__(self, game_config: Optional[GameConfig] = None):
        self.game_config = game_config or GameConfig()

    def init(self, key):
        return _init(key, self.game_config)


env = RedMahjong()
init_fn = jax.jit(jax.vmap(env.init))
states = init_fn(jax.random.split(jax.random.PRNGKey(0), 1024))
print("dealer counts over 1024 tables:", jnp.bincount(states.dealer, length=4))
with jax.debug_key_reuse(True):
    try:
        env.init(jax.random.key(1))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:120])
