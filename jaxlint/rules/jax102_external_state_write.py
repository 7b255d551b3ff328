"""JAX102: traced code that writes to state outliving the trace (globals, closures, `self`)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.functions import FunctionInfo
from jaxlint.rules._impurity import (INIT_METHODS, outlives_trace, root_name, self_name,
                                     trace_time_function, where)
from jaxlint.rules.base import Rule

#: Methods of list / dict / set / deque that store their arguments in the container.
MUTATING_METHODS: frozenset[str] = frozenset({
    "append", "extend", "insert", "update", "add", "setdefault", "appendleft", "extendleft",
})

_FIX_LEAK = ("return the value from the function instead (or use jax.debug.callback to "
             "record values per call)")
_FIX_ONCE = "return the new state from the function and pass it back in on the next call"


class ExternalStateWrite(Rule):
    code = "JAX102"
    name = "external-state-write"
    summary = "traced code writes to a global, a closure or `self`: once per trace, and tracers leak"
    confirm_kind = "leak"

    def check(self):
        model = self.model
        for node in model.nodes(cst.Assign, cst.AugAssign, cst.AnnAssign):
            if isinstance(node, cst.AnnAssign) and node.value is None:
                continue
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                yield from self._assignment(node, target)
        for call in model.nodes(cst.Call):
            func = call.func
            if not isinstance(func, cst.Attribute) or func.attr.value not in MUTATING_METHODS:
                continue
            values = [a.value for a in call.args]
            yield from self._write(call, func.value, values, f".{func.attr.value}(...)")

    def _assignment(self, node, target):
        value = node.value
        if isinstance(target, cst.Name):
            func = trace_time_function(self.model, node)
            if func is None or not self._declared_outer(target.value, func):
                return
            yield from self._flag(node, target, func, "module" if target.value in func.scope.globals
                                  else "closure", [value], "assignment to")
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                yield from self._assignment(node, el.value)
        elif isinstance(target, (cst.Subscript, cst.Attribute)):
            kind = "item assignment to" if isinstance(target, cst.Subscript) else "attribute assignment to"
            container = target.value
            yield from self._write(node, container, [value], kind, target)

    def _declared_outer(self, name: str, func: FunctionInfo) -> bool:
        return name in func.scope.globals or name in func.scope.nonlocals

    def _write(self, node, container, values, what, target=None):
        model = self.model
        root = root_name(container)
        if root is None:
            return
        func = trace_time_function(model, node)
        if func is None:
            return
        place = None
        if root.value == self_name(func) and model.value(root).kind.name != "TRACED":
            method = func
            while method is not None and not method.is_method:
                method = method.enclosing
            if method is None or method.name in INIT_METHODS:
                return
            place = "self"
        else:
            place = outlives_trace(model, root, func)
        if place is None:
            return
        yield from self._flag(node, target if target is not None else container, func, place,
                              values, what)

    def _flag(self, node, shown, func, place, values, what):
        traced = any(v is not None and self._holds_tracer(v) for v in values)
        name = self.source(shown)
        what = f"`{name}{what}`" if what.startswith(".") else f"{what} `{name}`"
        if traced:
            msg = (f"{what} {where(func)} stores a tracer outside the trace: using it "
                   f"after the trace raises UnexpectedTracerError; {_FIX_LEAK}")
        elif func.cached and place != "outer trace":
            # Only stored tracers leak; a static write is wrong because it runs once per
            # trace, which only matters when the trace is cached.
            if not self._counts(node, values):
                return
            msg = (f"{what} {where(func)} runs once, at trace time, not on every call; "
                   f"{_FIX_ONCE}")
        else:
            return
        root = root_name(shown) if not isinstance(shown, cst.Name) else shown
        yield self.report(node, msg, func, global_name=root.value if root is not None else name,
                          place=place)

    def _holds_tracer(self, expr: cst.BaseExpression) -> bool:
        stack = [expr]
        while stack:
            node = stack.pop()
            if self.model.value(node).traced:
                return True
            if isinstance(node, (cst.Lambda, cst.FunctionDef)):
                continue
            stack.extend(c for c in node.children if isinstance(c, cst.CSTNode))
        return False

    def _counts(self, node, values) -> bool:
        """A write whose effect is meant per call: rebinding state, or a counter update."""
        return True
