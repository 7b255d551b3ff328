"""JAX902: `from jax.config import config` / `import jax.config`: the module was removed."""

from __future__ import annotations

from jaxlint.rules.base import Rule
from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks


class RemovedConfigModule(RemovedAPIChecks, Rule):
    code = "JAX902"
    name = "removed-config-module"
    summary = "`from jax.config import config` fails: the jax.config submodule was removed"
    severity = "error"
    raises = "ModuleNotFoundError"
    confirm_kind = "removed-api"
    migration = "config-module"
