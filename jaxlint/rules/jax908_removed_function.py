"""JAX908: a removed JAX function (`jax.device_put_sharded`, `jax.lib.xla_bridge.get_backend`, ...)."""

from __future__ import annotations

from jaxlint.rules.base import Rule
from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks


class RemovedFunction(RemovedAPIChecks, Rule):
    code = "JAX908"
    name = "removed-function"
    summary = ("`jax.device_put_sharded` / `device_put_replicated`, `jax.lib.xla_bridge` accessors "
               "and other removed JAX functions raise AttributeError")
    severity = "error"
    raises = "AttributeError"
    also_raises = ("ImportError",)  # `from jax.experimental import PartitionSpec`
    confirm_kind = "removed-api"
    migration = "removed-function"
