"""Scopes and bindings: the single place where a name's meaning is looked up.

Like pyflakes, a name is resolved through the scopes that enclose it, never by
its spelling: `jit` is JAX's only when it was imported from JAX in the scope
that the reference sees.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import libcst as cst

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.engine.functions import ClassInfo, FunctionInfo


class BindingKind(str, enum.Enum):
    """What bound a name. A str enum: `b.kind == "import"` reads as it always did."""

    IMPORT = "import"
    DEF = "def"
    CLASS = "class"
    PARAM = "param"
    ASSIGN = "assign"

    def __str__(self) -> str:
        return self.value


class ScopeKind(str, enum.Enum):
    MODULE = "module"
    FUNCTION = "function"
    CLASS = "class"

    def __str__(self) -> str:
        return self.value


@dataclass(eq=False, slots=True)
class Binding:
    """One binding of a name in a scope."""

    kind: BindingKind
    node: cst.CSTNode
    order: int
    qualname: Optional[str] = None  # for imports: the dotted name it refers to
    function: Optional["FunctionInfo"] = None  # for defs
    klass: Optional["ClassInfo"] = None  # for classes


@dataclass(eq=False)
class Scope:
    kind: ScopeKind
    parent: Optional["Scope"]
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)

    def bind(self, name: str, binding: Binding) -> None:
        if name in self.globals:
            target = self.module
        elif name in self.nonlocals:
            target = self._enclosing_binder(name)
        else:
            target = self
        target.bindings.setdefault(name, []).append(binding)

    def _enclosing_binder(self, name: str) -> "Scope":
        """For `nonlocal name`: the nearest enclosing function scope that binds it."""
        scope = self.parent
        while scope is not None:
            if scope.kind == "function" and name in scope.bindings:
                return scope
            scope = scope.parent
        return self

    @property
    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def lookup(self, name: str) -> Optional[list[Binding]]:
        """The bindings of `name` visible from this scope, or None for a free name."""
        if name in self.globals:
            return self.module.bindings.get(name)
        if name in self.nonlocals:
            return self._enclosing_binder(name).bindings.get(name)
        scope: Optional[Scope] = self
        first = True
        while scope is not None:
            # Class bodies are not visible from the functions nested in them.
            if first or scope.kind != "class":
                found = scope.bindings.get(name)
                if found:
                    return found
            first = False
            scope = scope.parent
        return None

    def resolve_import(self, name: str) -> Optional[str]:
        """The dotted name that `name` refers to, when every binding is one import."""
        bindings = self.lookup(name)
        if bindings is None:
            return "builtins." + name
        qualname = None
        for b in bindings:
            if b.kind != "import":
                return None
            if qualname is not None and b.qualname != qualname:
                return None
            qualname = b.qualname
        return qualname


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` for a Name / Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def target_names(target: cst.BaseExpression):
    """The plain names bound by an assignment target (not attributes or items)."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from target_names(el.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)
