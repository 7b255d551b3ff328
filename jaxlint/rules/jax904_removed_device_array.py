"""JAX904: `DeviceArray` (`jnp.DeviceArray`, `jax.interpreters.xla.DeviceArray`) and its methods
(`x.device_buffer`, `x.to_py()`, `x.device()`) were removed."""

from __future__ import annotations

import re
from typing import Iterator

import libcst as cst

from jaxlint.api_changes import (ARRAY_ATTRIBUTE_CHANGES, ARRAY_METHODS_NOW_PROPERTIES, default_target,
                                 parse_version, removed_at)
from jaxlint.engine.values import Shape
from jaxlint.rules.base import Report, Rule
from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks


class RemovedDeviceArray(RemovedAPIChecks, Rule):
    code = "JAX904"
    name = "removed-device-array"
    summary = "`jnp.DeviceArray` and its methods were removed; JAX arrays are `jax.Array`"
    severity = "error"
    raises = "AttributeError"
    also_raises = ("TypeError",)  # `x.device()`: `device` is a property now
    confirm_kind = "removed-api"
    migration = "device-array"

    def check(self) -> Iterator[Report]:
        yield from super().check()
        yield from self._array_attributes()

    def _array_attributes(self) -> Iterator[Report]:
        """`x.device_buffer`, `x.to_py()`, `x.device()`: DeviceArray's API, gone from `jax.Array`."""
        model = self.model
        own = _own_attributes(model)
        for node in model.nodes(cst.Attribute):
            name = node.attr.value
            api = ARRAY_ATTRIBUTE_CHANGES.get(name)
            if api is None or name in own or not removed_at(api, self.target_jax_version):
                continue
            if self._assigned(node) or self._guarded(node) or self._in_import(node):
                continue
            parent = model.parent(node)
            called = isinstance(parent, cst.Call) and parent.func is node
            receiver = model.value(node.value).shape
            error = "AttributeError"
            if name in ARRAY_METHODS_NOW_PROPERTIES:
                # The name is a property again: only the call fails, and only on an array.
                if not called or receiver is not Shape.ARRAY:
                    continue
                if parse_version(ARRAY_METHODS_NOW_PROPERTIES[name]) <= parse_version(
                        self.target_jax_version or default_target()):
                    error = "TypeError"
            elif receiver in _NOT_ARRAYS:
                continue
            text = model.module.code_for_node(parent if called else node)
            recv = model.module.code_for_node(node.value)
            use = re.sub(r"\bx\b", lambda _: recv, api.replacement)
            if error == "TypeError":
                why = (f"`{name}` has been a property since JAX {ARRAY_METHODS_NOW_PROPERTIES[name]}, "
                       f"not a method (the method was deprecated in {api.deprecated_in})")
            elif api.deprecated_in:
                why = f"JAX arrays lost `{name}` in JAX {api.removed_in}, deprecated since {api.deprecated_in}"
            else:
                why = f"it was DeviceArray's; `jax.Array`, the default array since JAX {api.removed_in}, has none"
            yield self.report(node, f"`{text}` raises {error}: {why}; use {use}",
                              model.function_of(node), removed=f"jax.Array.{name}", called=called)


# What the model knows is not a JAX array: its attribute is someone else's.
_NOT_ARRAYS = frozenset({Shape.NUMPY, Shape.SCALAR, Shape.CONTAINER, Shape.OBJECT, Shape.BOX})


def _own_attributes(model) -> set[str]:
    """Names this file gives its own objects: `def device(self)`, `self.device_buffer = ...`."""
    names = set()
    for node in model.nodes(cst.FunctionDef):
        names.add(node.name.value)
    for node in model.nodes(cst.AssignTarget, cst.AnnAssign):
        target = node.target
        if isinstance(target, cst.Attribute):
            names.add(target.attr.value)
    return names
