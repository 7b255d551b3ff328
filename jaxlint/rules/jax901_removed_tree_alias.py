"""JAX901: the removed `jax.tree_*` aliases (`jax.tree_map`, `jax.tree_multimap`, ...).

This module also holds `RemovedAPIChecks`, shared by every rule about a removed
JAX name (JAX303, JAX901-JAX905): each rule picks one migration of
`jax_api.REMOVED_APIS` / `REMOVED_MODULES`.
"""

from __future__ import annotations

from typing import ClassVar, Iterator, Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.api_changes import removed_at
from jaxlint.engine.guards import in_guarded_fallback, under_type_checking
from jaxlint.engine.scopes import dotted_name
from jaxlint.rules.base import Report, Rule

_SETATTR = "builtins.setattr"

def _postponed_annotations(module: cst.Module) -> bool:
    """`from __future__ import annotations`: annotations stay strings, never evaluated."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) \
                        and small.module.value == "__future__" and not isinstance(small.names, cst.ImportStar) \
                        and any(isinstance(a.name, cst.Name) and a.name.value == "annotations" for a in small.names):
                    return True
    return False


class RemovedAPIChecks:
    """Finds uses of the removed JAX names of one migration.

    A name is reported where it fails: at the import for `from jax import tree_map`
    (ImportError), at the attribute for `jax.tree_map(...)` (AttributeError), at the
    import for a removed module (ModuleNotFoundError). Names are resolved through
    imports, so a local `tree_map` is not JAX's. Code that never fails is left alone
    (`_never_fails`): a compatibility shim (the engine's `in_guarded_fallback`:
    `try`/`except ImportError`, `hasattr`, a version check), a name the file itself puts
    back on the module, and code Python never runs (`if TYPE_CHECKING:`, an annotation
    left unevaluated). JAX909 shares these, so a name is judged the same by every rule.
    """

    migration: ClassVar[str]
    # The names this file sets on JAX modules, once read (a rule instance sees one file).
    _set_here: Optional[frozenset[str]] = None

    def check(self) -> Iterator[Report]:
        model = self.model
        for node in model.nodes(cst.Import, cst.ImportFrom):
            if self._guarded(node) or under_type_checking(model, node):
                continue
            if isinstance(node, cst.Import):
                yield from self._import(node)
            else:
                yield from self._import_from(node)
        for node in model.nodes(cst.Attribute):
            q = model.qualname(node)
            api = jax_api.API_CHANGES.get(q) if q else None
            if api is None or not self._selects(api) or self._never_fails(node, q):
                continue
            text = model.module.code_for_node(node)
            yield self.report(node, self._message(f"`{text}`", f"`{q}`" if q != text else f"`{text}`",
                                                  api, "AttributeError"),
                              model.function_of(node), removed=q)

    def _import(self, node: cst.Import) -> Iterator[Report]:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = dotted_name(alias.name)
            api = self._removed_module(name)
            if api is not None:
                yield self.report(alias, self._message(f"`import {name}`", f"the `{name}` submodule", api,
                                                       "ModuleNotFoundError"),
                                  self.model.function_of(node), removed_module=name)

    def _import_from(self, node: cst.ImportFrom) -> Iterator[Report]:
        if node.relative or node.module is None:
            return
        module = dotted_name(node.module)
        api = self._removed_module(module)
        if api is not None:
            yield self.report(node, self._message(f"`from {module} import ...`", f"the `{module}` submodule", api,
                                                  "ModuleNotFoundError"),
                              self.model.function_of(node), removed_module=module)
            return
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            q = f"{module}.{alias.name.value}"
            mod_api = jax_api.REMOVED_MODULES.get(q)
            # `from jax.experimental import optimizers` fails; `from jax import config` works
            # (config is still an attribute of jax, only the submodule is gone).
            if mod_api is not None and self._selects(mod_api) and q != "jax.config":
                yield self.report(alias, self._message(
                    f"`from {module} import {alias.name.value}`", f"the `{q}` submodule", mod_api,
                    "ImportError"), self.model.function_of(node), removed_module=q)
                continue
            api = jax_api.API_CHANGES.get(q)
            if api is not None and self._selects(api):
                yield self.report(alias, self._message(
                    f"`from {module} import {alias.name.value}`", f"`{q}`", api, "ImportError"),
                    self.model.function_of(node), removed=q)

    def _removed_module(self, name: str) -> Optional[jax_api.RemovedAPI]:
        for mod, api in jax_api.REMOVED_MODULES.items():
            if self._selects(api) and (name == mod or name.startswith(mod + ".")):
                return api
        return None

    def _selects(self, api: jax_api.RemovedAPI) -> bool:
        """This rule's migration, removed at the target JAX version."""
        return api.migration == self.migration and removed_at(api, self.target_jax_version)

    def fix(self, report: Report):
        from jaxlint.fixes.removed_api import fix_for

        return fix_for(self.model, report, self.target_jax_version)

    def _message(self, what: str, subject: str, api: jax_api.RemovedAPI, error: str) -> str:
        """`what` raises `error` (`subject` was removed in JAX N); use ..."""
        when = f"in JAX {api.removed_in}" if api.removed_in else "from JAX"
        if what == subject:
            return f"{what} was removed {when} and raises {error}; use {api.replacement}"
        return f"{what} raises {error} ({subject} was removed {when}); use {api.replacement}"

    # Where a removed name is not a bug -------------------------------------
    def _never_fails(self, node: cst.Attribute, q: str) -> bool:
        """Reading `q` at `node` cannot raise: it is part of an import, the target of an
        assignment or `del`, a name the file sets on the module itself, a guarded fallback,
        or code Python never runs."""
        model = self.model
        return self._in_import(node) or self._assigned(node) or self._deleted(node) \
            or q in self._set_attributes() or self._guarded(node) \
            or self._unevaluated_annotation(node) or under_type_checking(model, node)

    def _set_attributes(self) -> frozenset[str]:
        """Names the file itself puts on a JAX module (`jax.random.KeyArray = jax.Array`,
        `setattr(jnp, "NINF", -jnp.inf)`): a shim, after which reading them works."""
        if self._set_here is not None:
            return self._set_here
        model = self.model
        found = set()
        for node in model.nodes(cst.Attribute):
            if self._assigned(node):
                q = model.qualname(node)
                if q:
                    found.add(q)
        for call in model.nodes(cst.Call):
            if model.qualname(call.func) == _SETATTR and len(call.args) >= 2 \
                    and isinstance(call.args[1].value, cst.SimpleString):
                base = model.qualname(call.args[0].value)
                if base:
                    found.add(f"{base}.{call.args[1].value.evaluated_value}")
        self._set_here = frozenset(found)
        return self._set_here

    def _deleted(self, node: cst.CSTNode) -> bool:
        return isinstance(self.model.parent(node), cst.Del)

    def _in_import(self, node: cst.CSTNode) -> bool:
        return any(isinstance(a, (cst.Import, cst.ImportFrom)) for a in self.model.ancestors(node))

    def _assigned(self, node: cst.CSTNode) -> bool:
        """`jax.tree_map = jax.tree_util.tree_map`: a shim that restores the name."""
        parent = self.model.parent(node)
        if isinstance(parent, cst.AssignTarget):
            return True
        return isinstance(parent, (cst.AnnAssign, cst.AugAssign)) and parent.target is node

    def _unevaluated_annotation(self, node: cst.CSTNode) -> bool:
        """An annotation Python never evaluates, so the removed name never raises: any
        annotation under `from __future__ import annotations`, and a local variable's
        (`x: T = v` in a function body) always."""
        model = self.model
        ancestors = list(model.ancestors(node))
        at = next((i for i, a in enumerate(ancestors) if isinstance(a, cst.Annotation)), None)
        if at is None:
            return False
        if _postponed_annotations(model.module):
            return True
        owner = ancestors[at + 1] if at + 1 < len(ancestors) else None
        body = next((a for a in ancestors[at + 1:] if isinstance(a, (cst.FunctionDef, cst.ClassDef, cst.Lambda))), None)
        return isinstance(owner, cst.AnnAssign) and isinstance(body, cst.FunctionDef)

    def _guarded(self, node: cst.CSTNode) -> bool:
        return in_guarded_fallback(self.model, node)


class RemovedTreeAlias(RemovedAPIChecks, Rule):
    code = "JAX901"
    name = "removed-tree-alias"
    summary = "`jax.tree_map` / `jax.tree_multimap` and the other jax.tree_* aliases were removed"
    severity = "error"
    raises = "AttributeError"
    confirm_kind = "removed-api"
    migration = "tree-alias"
