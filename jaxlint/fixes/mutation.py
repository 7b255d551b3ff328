"""Fixes for array mutation: `x[i] = v` (JAX301) and a discarded `x.at[i].set(v)` (JAX302).

Both rebind the name to the updated copy. That is unsafe in ruff's sense:
other names that referred to the old array keep seeing its old values.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.model import FileModel
from jaxlint.engine.scopes import dotted_name
from jaxlint.fixes import build
from jaxlint.fixes.edits import DISPLAY_ONLY, UNSAFE, Fix

_REBIND_NOTE = "other names bound to the old array keep its old values"


def _rebindable(model: FileModel, base: cst.BaseExpression) -> bool:
    """`x = ...` may replace the mutation: `x` is a name (or attribute) bound where it is used.

    In a function, assigning a name that is only read there (a global or a closure
    variable) would make it local, and the read before it an UnboundLocalError.
    """
    if isinstance(base, cst.Attribute):
        return dotted_name(base) is not None
    if not isinstance(base, cst.Name):
        return False
    scope = model.scope_of(base)
    if scope.kind != "function":
        return True
    return base.value in scope.bindings or base.value in scope.globals or base.value in scope.nonlocals


def at_update(base: str, index: str, op: Optional[str], value: str, operand: Optional[str] = None) -> str:
    """The `.at[]` form of `base[index] = value` (op None) or `base[index] op value`.

    `+=` and kin map to their `.at[]` method; other operators become
    `.set(base[index] OP operand)` (`operand`: the value, parenthesised if needed).
    """
    if op is None:
        return f"{base} = {base}.at[{index}].set({value})"
    method = jax_api.AUGMENTED_AT_METHODS.get(op)
    if method is not None:
        return f"{base} = {base}.at[{index}].{method}({value})"
    return f"{base} = {base}.at[{index}].set({base}[{index}] {op[:-1]} {operand or value})"


def item_assignment(model: FileModel, target: cst.Subscript) -> Optional[Fix]:
    """`x[i] = v` -> `x = x.at[i].set(v)`; `x[i] += v` -> `x = x.at[i].add(v)`."""
    code = lambda n: build.code(model, n)  # noqa: E731
    stmt = model.parent(target)
    if isinstance(stmt, cst.AssignTarget):
        stmt = model.parent(stmt)
        if not isinstance(stmt, cst.Assign) or len(stmt.targets) != 1:
            return None
    elif not isinstance(stmt, cst.AugAssign) or stmt.target is not target:
        return None
    base = code(target.value)
    index = ", ".join(code(el.slice) for el in target.slice)
    value = code(stmt.value)
    if isinstance(stmt, cst.Assign):
        text = at_update(base, index, None, value)
    else:
        text = at_update(base, index, code(stmt.operator).strip(), value,
                         build.parenthesize(stmt.value, value))
    message = f"Rebind: `{text}` ({_REBIND_NOTE})"
    if not _rebindable(model, target.value):
        return Fix(DISPLAY_ONLY, message + f"; `{base}` is not bound in this function, so pass it in and return it")
    return Fix(UNSAFE, message, (build.replace(model, stmt, text),))


def discarded_update(model: FileModel, call: cst.Call) -> Optional[Fix]:
    """`x.at[i].set(v)` as a statement -> `x = x.at[i].set(v)`."""
    stmt = model.parent(call)
    if not isinstance(stmt, cst.Expr) or not isinstance(call.func, cst.Attribute) \
            or call.func.attr.value == "get":
        return None
    at = call.func.value
    array = at.value.value if isinstance(at, cst.Subscript) and isinstance(at.value, cst.Attribute) else None
    if array is None:
        return None
    name = build.code(model, array)
    text = f"{name} = {build.code(model, call)}"
    message = f"Assign the result: `{name} = {name}.at[...]...` ({_REBIND_NOTE})"
    if not _rebindable(model, array):
        return Fix(DISPLAY_ONLY, message)
    return Fix(UNSAFE, message, (build.replace(model, stmt, text),))
