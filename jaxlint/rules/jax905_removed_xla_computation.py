"""JAX905: `jax.xla_computation` was removed; use the ahead-of-time API."""

from __future__ import annotations

from jaxlint.rules.base import Rule
from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks


class RemovedXlaComputation(RemovedAPIChecks, Rule):
    code = "JAX905"
    name = "removed-xla-computation"
    summary = "`jax.xla_computation` was removed; use `jax.jit(f).lower(*args)`"
    severity = "error"
    raises = "AttributeError"
    confirm_kind = "removed-api"
    migration = "xla-computation"
