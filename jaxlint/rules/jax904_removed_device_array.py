"""JAX904: `DeviceArray` (`jnp.DeviceArray`, `jax.interpreters.xla.DeviceArray`) was removed."""

from __future__ import annotations

from jaxlint.rules.base import Rule
from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks


class RemovedDeviceArray(RemovedAPIChecks, Rule):
    code = "JAX904"
    name = "removed-device-array"
    summary = "`jnp.DeviceArray` was removed; JAX arrays are `jax.Array`"
    severity = "error"
    raises = "AttributeError"
    confirm_kind = "removed-api"
    migration = "device-array"
