"""JAX301: item assignment on a JAX array (`x[0] = 1`, `x[i] += v`): arrays are immutable."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.callees import passed_arguments
from jaxlint.engine.evaluate import is_array_annotation
from jaxlint.engine.functions import FunctionInfo
from jaxlint.fixes.mutation import at_update
from jaxlint.rules.base import Report, Rule

# Evidence that a traced parameter is an array and not a list or dict pytree.
_ARRAY_EVIDENCE = jax_api.STATIC_ATTRIBUTES | jax_api.ARRAY_ATTRIBUTES


class ArrayItemAssignment(Rule):
    code = "JAX301"
    name = "array-item-assignment"
    summary = "item assignment on a JAX array raises TypeError (arrays are immutable); use x.at[idx].set(v)"
    severity = "error"
    confirm_kind = "trace-error"
    raises = "TypeError"

    def check(self) -> Iterator[Report]:
        model = self.model
        for node in model.nodes(cst.Assign, cst.AugAssign):
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
                op = None
            else:
                targets = [node.target]
                op = model.module.code_for_node(node.operator).strip()
            for target in _subscripts(targets):
                if self._is_jax_array(target):
                    yield self._report(node, target, op)
                else:
                    call = self._array_passed(target)
                    if call is not None:
                        yield self._report(node, target, op, call)

    def fix(self, report: Report):
        from jaxlint.fixes.mutation import item_assignment

        if not self._is_jax_array(report.node):
            return None  # reported for one call's JAX array: `.at` would break a NumPy caller
        return item_assignment(self.model, report.node)

    def _is_jax_array(self, target: cst.Subscript) -> bool:
        model = self.model
        base = target.value
        v = model.value(base)
        if v.array:
            # Any index: a JAX array's __setitem__ always raises.
            return True
        if not v.maybe_tracer or v.cls is not None or not isinstance(base, cst.Name):
            # Dicts, lists, pytree instances and boxes (nnx Variables, Pallas Refs)
            # take item assignment.
            return False
        # A traced parameter may be a pytree: `params["w"] = w` on a dict, or
        # `layers[0] = f(layers[0])` on a list, is fine. Only an array index on a
        # value used as an array elsewhere (`x.shape`, `x.at`, ...) is reported.
        kind = _index_kind(model, target)
        if kind == "key":
            return False
        if kind == "array-only":
            return True
        return self._used_as_array(base, model.function_of(target))

    def _array_passed(self, target: cst.Subscript) -> Optional[cst.Call]:
        """A call of this file that passes a JAX array to the parameter assigned into
        (`fill(jnp.zeros(3))` for `def fill(a): a[0] = 1`): that call raises, whatever the
        other calls pass (a NumPy array takes the assignment)."""
        base = target.value
        if not isinstance(base, cst.Name):
            return None
        for call, arg in passed_arguments(self.model, base) or ():
            if self.model.value(arg).array:
                return call
        return None

    def _used_as_array(self, name: cst.Name, func: Optional[FunctionInfo]) -> bool:
        if func is None:
            return False
        ann = func.annotations.get(name.value)
        if ann is not None and is_array_annotation(self.model, ann):
            return True
        for attr in self.model.nodes(cst.Attribute):
            if isinstance(attr.value, cst.Name) and attr.value.value == name.value \
                    and attr.attr.value in _ARRAY_EVIDENCE and self.model.function_of(attr) is func:
                return True
        return False

    def _report(self, stmt, target: cst.Subscript, op: Optional[str],
                call: Optional[cst.Call] = None) -> Report:
        model = self.model
        code = model.module.code_for_node
        base = code(target.value)
        index = ", ".join(code(el.slice) for el in target.slice)
        value = code(stmt.value)
        if len(value) > 30:
            value = "v"
        fix = at_update(base, index, op, value)
        if op is None:
            what = f"item assignment `{self.source(target)} = ...`"
        else:
            what = f"augmented item assignment `{self.source(target)} {op} ...`"
        func = model.function_of(target)
        where = ""
        if func is not None and func.traced and model.value(target.value).traced:
            desc = func.transform_description()
            where = f" under {desc}" if desc and not desc.startswith("lax.") else (
                f" in a {desc} body" if desc else "")
        if call is not None:
            where = f" when `{code(call.func)}` is called with one (line {model.line_of(call)})"
        msg = (f"{what} on a JAX array raises TypeError{where}: JAX arrays are immutable; "
               f"use `{fix}`")
        return self.report(target, msg, func)


def _subscripts(targets) -> Iterator[cst.Subscript]:
    for t in targets:
        if isinstance(t, cst.Subscript):
            yield t
        elif isinstance(t, (cst.Tuple, cst.List)):
            yield from _subscripts(el.value for el in t.elements)


def _index_kind(model, target: cst.Subscript) -> str:
    """"key" (a dict key), "array-only" (only arrays take it), or "sequence" (int / slice)."""
    elements = target.slice
    if len(elements) > 1:
        return "array-only"  # x[:, 0]: lists and dicts take a single index
    s = elements[0].slice
    if isinstance(s, cst.Slice):
        return "sequence"
    value = s.value
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return "key"
    if isinstance(value, cst.Tuple):
        return "array-only"
    if isinstance(value, cst.Ellipsis) or (isinstance(value, cst.Name) and value.value == "None"):
        return "array-only"
    if isinstance(value, cst.Integer) or (
            isinstance(value, cst.UnaryOperation) and isinstance(value.expression, cst.Integer)):
        return "sequence"
    v = model.value(value)
    if v.static or v.traced:
        return "sequence"
    return "key"  # an index of unknown type: may well be a dict key
