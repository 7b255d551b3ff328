"""JAX302: `x.at[i].set(v)` as a bare statement: the new array is dropped, `x` is unchanged."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.model import walk
from jaxlint.rules.base import Report, Rule


class DiscardedAtUpdate(Rule):
    code = "JAX302"
    name = "discarded-at-update"
    summary = "the result of `x.at[idx].set(...)` is discarded: JAX arrays are immutable, so it has no effect"
    severity = "error"

    def fix(self, report: Report):
        from jaxlint.fixes.mutation import discarded_update

        return discarded_update(self.model, report.node)

    def check(self) -> Iterator[Report]:
        model = self.model
        for stmt in model.nodes(cst.Expr):
            call = stmt.value
            if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
                continue
            method = call.func.attr.value
            at = call.func.value
            if method not in jax_api.AT_METHODS or not isinstance(at, cst.Subscript):
                continue
            if not isinstance(at.value, cst.Attribute) or at.value.attr.value != "at":
                continue
            array = at.value.value
            if model.value(array).static:
                continue  # a Python / NumPy value: not JAX's `.at`
            func = model.function_of(stmt)
            if func is None and model.shown_by_cell(stmt):
                continue  # a cell's last expression is displayed: not dropped
            code = model.module.code_for_node
            name = code(array)
            index = ", ".join(code(el.slice) for el in at.slice)
            args = ", ".join(code(a.value) if a.keyword is None else code(a).rstrip(", ")
                             for a in call.args)
            if len(args) > 30:
                args = "..."
            fix = f"{name} = {name}.at[{index}].{method}({args})"
            msg = (f"`{self.source(call)}` returns a new array that is discarded, so `{name}` "
                   f"is unchanged (JAX arrays are immutable); assign it: `{fix}`")
            if method == "get":
                msg = (f"`{self.source(call)}` returns a value that is discarded, so the statement "
                       f"does nothing; assign it or remove it")
            yield self.report(call, msg, func)
        yield from self._unused_locals()
        yield from self._augmented_loop_variables()

    def _augmented_loop_variables(self) -> Iterator[Report]:
        """`for p, g in zip(params, grads): p -= lr * g`: on a JAX array `-=` makes a new
        array and rebinds the loop variable only, so `params` keeps the old arrays (a
        NumPy array would be updated in place)."""
        model = self.model
        for aug in model.nodes(cst.AugAssign):
            if not isinstance(aug.target, cst.Name):
                continue
            name = aug.target.value
            loop = _enclosing_for(model, aug)
            bound = _target_names(loop.target) if loop is not None else {}
            if name not in bound:
                continue
            value = model.value(bound[name])
            if not value.array or value.static:
                continue
            func = model.function_of(aug)
            own = set(map(id, walk(aug))) | {id(bound[name])}
            if any(id(node) not in own and _same_scope(model, node, func)
                   for node in self._name_nodes(name)):
                continue  # the new value is read (or the name rebound) somewhere
            iterable = self.source(loop.iter)
            yield self.report(aug, (
                f"`{self.source(aug)}` makes a new array and rebinds the loop variable `{name}` "
                f"only (JAX arrays are immutable): the arrays in `{iterable}` are unchanged; "
                f"build the updated values, e.g. a comprehension over `{iterable}` assigned back"), func)

    def _name_nodes(self, name: str) -> list:
        model = self.model
        if not hasattr(self, "_names"):
            self._names: dict[str, list] = {}
            for node in model.nodes(cst.Name):
                self._names.setdefault(node.value, []).append(node)
        return self._names.get(name, [])

    def _unused_locals(self) -> Iterator[Report]:
        """`y = x.at[i].set(v)` in a function that never reads `y`: the update is lost."""
        model = self.model
        for stmt in model.nodes(cst.Assign):
            call = stmt.value
            if len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, cst.Name):
                continue
            at = _at_call(call)
            if at is None or model.value(at.value.value).static:
                continue
            func = model.function_of(stmt)
            if func is None or func.is_lambda:
                continue
            name = stmt.targets[0].target.value
            if name.startswith("_") or name in func.scope.globals or name in func.scope.nonlocals:
                continue
            if self._read_in(func, name, stmt.targets[0].target):
                continue
            code = model.module.code_for_node
            array = code(at.value.value)
            msg = (f"`{name} = {self.source(call)}` makes a new array that is never used, so "
                   f"`{array}` is unchanged (JAX arrays are immutable); use `{name}`, or write "
                   f"`{array} = {array}.at[...]...` if `{array}` was meant to change")
            yield self.report(call, msg, func)

    def _read_in(self, func, name: str, target: cst.Name) -> bool:
        """Whether `name` is read anywhere in `func` (nested functions included)."""
        model = self.model
        if not hasattr(self, "_names"):
            self._names: dict[str, list] = {}
            for node in model.nodes(cst.Name):
                self._names.setdefault(node.value, []).append(node)
        for node in self._names.get(name, ()):
            if node is target:
                continue
            f = model.function_of(node)
            while f is not None and f is not func:
                f = f.enclosing
            if f is func:
                return True
        return False


def _enclosing_for(model, node: cst.CSTNode) -> "cst.For | None":
    for anc in model.ancestors(node):
        if isinstance(anc, cst.For):
            return anc
        if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return None
    return None


def _target_names(target: cst.BaseExpression) -> dict:
    """The names a `for` target binds -> their Name nodes."""
    if isinstance(target, cst.Name):
        return {target.value: target}
    if isinstance(target, (cst.Tuple, cst.List)):
        out = {}
        for el in target.elements:
            out.update(_target_names(el.value))
        return out
    return {}


def _same_scope(model, node: cst.CSTNode, func) -> bool:
    """`node` runs in `func` or in a function nested in it (None: the module)."""
    f = model.function_of(node)
    while f is not None and f is not func:
        f = f.enclosing
    return f is func


def _at_call(call) -> "cst.Subscript | None":
    """The `x.at[i]` of `x.at[i].set(v)`, or None."""
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    at = call.func.value
    if call.func.attr.value not in jax_api.AT_METHODS or call.func.attr.value == "get":
        return None
    if not isinstance(at, cst.Subscript) or not isinstance(at.value, cst.Attribute) \
            or at.value.attr.value != "at":
        return None
    return at
