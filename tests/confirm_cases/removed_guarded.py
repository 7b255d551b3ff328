"""Removed JAX names the program never evaluates: jax 0.10.2 lacks each, and none fails here."""

from __future__ import annotations

import jax
import jax.numpy as jnp


def sample(key, n: int) -> jnp.DeviceArray:  # DECOY annotation: never evaluated
    draws: jnp.DeviceArray = jax.random.normal(key, (n,))  # DECOY local annotation
    return draws


try:
    from jax.extend.backend import get_backend
except ImportError:
    get_backend = jax.lib.xla_bridge.get_backend  # DECOY fallback: only an old jax runs it

if hasattr(jax, "device_put_replicated"):
    copies = jax.device_put_replicated(jnp.ones(3), jax.devices())  # DECOY hasattr guard


def old_tree(params):
    return jax.tree_map(lambda p: p / 2, params)  # REAL removed: evaluated when called


HANDLERS = {"halve": old_tree}  # the program hands it on: a caller reaches line `REAL removed`


sample(jax.random.key(0), 3)
print(get_backend().platform)
