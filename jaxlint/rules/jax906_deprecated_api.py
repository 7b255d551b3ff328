"""JAX906: a JAX API deprecated at the target JAX version (it still works, for now)."""

from __future__ import annotations

from jaxlint import jax_api
from jaxlint.api_changes import deprecated_at
from jaxlint.rules.base import Rule
from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks


class DeprecatedAPI(RemovedAPIChecks, Rule):
    code = "JAX906"
    name = "deprecated-api"
    summary = "A JAX API deprecated at the target JAX version: it works today and breaks on upgrade"
    # Information: a deprecation does not fail the run.
    severity = "info"
    migration = "*"

    def _selects(self, api: jax_api.RemovedAPI) -> bool:
        return deprecated_at(api, self.target_jax_version)

    def _message(self, what: str, subject: str, api: jax_api.RemovedAPI, error: str) -> str:
        since = f"since JAX {api.deprecated_in}" if api.deprecated_in else ""
        until = f" and removed in JAX {api.removed_in}" if api.removed_in else ""
        return f"{what} is deprecated {since}{until}; use {api.replacement}"
