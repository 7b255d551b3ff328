"""JAX903: removed jax.numpy aliases (`jnp.alltrue`, `sometrue`, `product`, `cumproduct`, ...)."""

from __future__ import annotations

from jaxlint.rules.base import Rule
from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks


class RemovedNumpyAlias(RemovedAPIChecks, Rule):
    code = "JAX903"
    name = "removed-numpy-alias"
    summary = "`jnp.alltrue` / `sometrue` / `product` / `cumproduct` and other NumPy aliases were removed"
    severity = "error"
    raises = "AttributeError"
    confirm_kind = "removed-api"
    migration = "numpy-alias"
