"""JAX303: the removed `jax.ops.index_update` / `index_add` / ... and `jax.ops.index`."""

from __future__ import annotations

from jaxlint.rules.base import Rule
from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks


class RemovedIndexUpdate(RemovedAPIChecks, Rule):
    code = "JAX303"
    name = "removed-index-update"
    summary = "`jax.ops.index_update` / `index_add` / ... were removed; use `x.at[idx].set(y)`"
    severity = "error"
    raises = "AttributeError"
    confirm_kind = "removed-api"
    migration = "index-update"
