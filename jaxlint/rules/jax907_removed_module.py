"""JAX907: a removed JAX module (`jax.experimental.optimizers`, `host_callback`, `maps`, ...)."""

from __future__ import annotations

from jaxlint.rules.base import Rule
from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks


class RemovedModule(RemovedAPIChecks, Rule):
    code = "JAX907"
    name = "removed-module"
    summary = ("`jax.experimental.optimizers` / `stax` / `host_callback` / `maps` (xmap), "
               "`jax.abstract_arrays` and other removed JAX modules fail to import")
    severity = "error"
    raises = "ImportError"
    confirm_kind = "removed-api"
    migration = "removed-module"
