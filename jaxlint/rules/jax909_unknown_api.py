"""JAX909: a dotted name in JAX's public namespace that does not exist (`jax.random.normals`).

The names each stable JAX module has are a generated table (`jaxlint/jax_namespace.py`),
true of one JAX release line; the rule speaks only when the target JAX is on that line.
A name some JAX release had is the removed-API table's (JAX901-JAX908), never this rule's.
"""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint import jax_api, jax_namespace
from jaxlint.engine.guards import under_type_checking
from jaxlint.engine.scopes import dotted_name
from jaxlint.rules.base import Report, Rule
from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks


class UnknownAPI(RemovedAPIChecks, Rule):
    code = "JAX909"
    name = "unknown-api"
    summary = "A name JAX's public modules do not have (`jax.random.normals`): AttributeError or ImportError"
    severity = "error"
    raises = "AttributeError"
    also_raises = ("ImportError",)  # `from jax.nn import cross_entropy`, `import jax.numpy.foo`
    confirm_kind = "removed-api"
    migration = ""

    def check(self) -> Iterator[Report]:
        if not jax_namespace.covers(self.target_jax_version):
            return
        model = self.model
        for node in model.nodes(cst.Import, cst.ImportFrom):
            if self._guarded(node) or under_type_checking(model, node):
                continue
            if isinstance(node, cst.Import):
                yield from self._unknown_import(node)
            else:
                yield from self._unknown_import_from(node)
        for node in model.nodes(cst.Attribute):
            q = model.qualname(node)
            if not q or self._missing(q) is None or self._never_fails(node, q):
                continue
            text = model.module.code_for_node(node)
            subject = f"`{q}`" if q != text else None
            yield self.report(node, self._unknown_message(f"`{text}`", subject, q, "AttributeError"),
                              model.function_of(node), removed=q)

    # Imports ----------------------------------------------------------------
    def _unknown_import(self, node: cst.Import) -> Iterator[Report]:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = dotted_name(alias.name) or ""
            q = self._first_missing(name)
            if q is not None:
                yield self.report(alias, self._unknown_message(f"`import {name}`", f"`{q}`" if q != name else None,
                                                               q, "ModuleNotFoundError"),
                                  self.model.function_of(node), expected="ImportError", removed_module=q)

    def _unknown_import_from(self, node: cst.ImportFrom) -> Iterator[Report]:
        if node.relative or node.module is None:
            return
        module = dotted_name(node.module) or ""
        q = self._first_missing(module)
        if q is not None:
            yield self.report(node, self._unknown_message(f"`from {module} import ...`", f"`{q}`", q,
                                                          "ModuleNotFoundError"),
                              self.model.function_of(node), expected="ImportError", removed_module=q)
            return
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            q = f"{module}.{alias.name.value}"
            if self._missing(q) is not None:
                yield self.report(alias, self._unknown_message(
                    f"`from {module} import {alias.name.value}`", f"`{q}`", q, "ImportError"),
                    self.model.function_of(node), expected="ImportError", removed=q)

    def _first_missing(self, dotted: str) -> Optional[str]:
        """The first prefix of a module path that its parent module lacks (`jax.numpy.foo` of
        `jax.numpy.foo.bar`), or None."""
        parts = dotted.split(".")
        for i in range(2, len(parts) + 1):
            q = ".".join(parts[:i])
            if self._missing(q) is not None:
                return q
        return None

    # What is missing ---------------------------------------------------------
    def _missing(self, q: str) -> Optional[str]:
        """The module lacking `q`'s last name, when the table records that module and no
        removed-API rule owns the name."""
        module, _, name = q.rpartition(".")
        if not module or name.startswith("_"):
            return None  # private names come and go between releases: not recorded
        known = jax_namespace.names(module)
        if known is None or name in known:
            return None
        if q in jax_api.API_CHANGES or any(q == m or q.startswith(m + ".") for m in jax_api.MODULE_CHANGES):
            return None  # a removed API: JAX901-JAX908 report it (or JAX906 while deprecated)
        return module

    def _unknown_message(self, what: str, subject: Optional[str], q: str, error: str) -> str:
        """`what` raises `error` (`subject` does not exist in JAX 0.10); the fix."""
        module, _, name = q.rpartition(".")
        line = ".".join(jax_namespace.table_version().split(".")[:2])
        jax_says = jax_namespace.removed_message(q)
        if jax_says:
            fix = f"JAX says: {jax_says}"
        else:
            near = jax_namespace.nearest(module, name)
            fix = f"did you mean `{near}`?" if near else "check the JAX API reference"
        if subject is None:
            return f"{what} does not exist in JAX {line} and raises {error}; {fix}"
        return f"{what} raises {error} ({subject} does not exist in JAX {line}); {fix}"

    def fix(self, report: Report):
        return report.fix
