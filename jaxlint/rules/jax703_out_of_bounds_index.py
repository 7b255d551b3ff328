"""JAX703: a literal index out of range of an array whose size the code states: no IndexError."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.rules._known_arrays import (argument, has_keyword, indices_at_call_sites, known_shape,
                                         literal_indices, literal_int)
from jaxlint.rules.base import Report, Rule


class OutOfBoundsIndex(Rule):
    code = "JAX703"
    name = "out-of-bounds-index"
    summary = ("`x[5]` / `x.at[5].set(v)` / `jnp.take(x, 5)` on an array of size 3: JAX clamps, "
               "drops or fills instead of raising IndexError")
    # Nothing raises at run time: the page's examples end with an assert that fails.
    raises = "AssertionError"

    def check(self) -> Iterator[Report]:
        model = self.model
        for sub in model.nodes(cst.Subscript):
            if _is_at(sub.value) or self._written(sub):
                continue
            found = self._out_of_bounds(sub.value, sub.slice)
            if found is None:
                continue
            axis, index, size = found
            name = self.source(sub.value)
            yield self.report(sub, (
                f"index {index} is out of bounds for axis {axis} of `{name}` (size {size}), yet "
                f"JAX raises no IndexError (NumPy does): it clamps the index to {_clamped(index, size)}, so "
                f"`{self.source(sub)}` silently reads the wrong element; use an index in range, or "
                f"`{name}.at[...].get(mode='fill', fill_value=...)` for an explicit out-of-bounds value"), model.function_of(sub))
        for call in model.nodes(cst.Call):
            report = self._at_call(call) or self._take(call)
            if report is not None:
                yield report

    # ------------------------------------------------------------------ the forms
    def _at_call(self, call: cst.Call) -> Optional[Report]:
        """`x.at[5].set(v)` (dropped) / `x.at[5].get()` (clamped), without `mode=`."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in jax_api.AT_METHODS:
            return None
        sub = func.value
        if not isinstance(sub, cst.Subscript) or not _is_at(sub.value) or has_keyword(call, "mode"):
            return None
        array = sub.value.value
        found = self._out_of_bounds(array, sub.slice)
        if found is None:
            return None
        axis, index, size = found
        name = self.source(array)
        method = func.attr.value
        if method == "get":
            what = f"clamps the index to {_clamped(index, size)} and silently reads the wrong element"
            fix = "pass mode='fill', fill_value=... for an explicit out-of-bounds value"
        else:
            what = f"silently drops the update, so the result equals `{name}`"
            fix = "pass mode='clip' to update the last element instead"
        return self.report(call, (
            f"index {index} is out of bounds for axis {axis} of `{name}` (size {size}): "
            f"`.at[{index}].{method}()` raises no IndexError (NumPy does) but {what}; use an index in "
            f"range, or {fix}"), self.model.function_of(call))

    def _take(self, call: cst.Call) -> Optional[Report]:
        """`jnp.take(x, 5)` / `x.take(5)` without `mode=`: filled (NaN for floats)."""
        model = self.model
        q = model.qualname(call.func)
        if q in jax_api.TAKE_FUNCTIONS:
            array, index, axis_arg = argument(call, 0, "a"), argument(call, 1, "indices"), argument(call, 2, "axis")
        elif q is None and isinstance(call.func, cst.Attribute) and call.func.attr.value == "take":
            array, index, axis_arg = call.func.value, argument(call, 0, "indices"), argument(call, 1, "axis")
        else:
            return None
        if array is None or index is None or has_keyword(call, "mode") or any(a.star for a in call.args):
            return None
        shape = known_shape(model, array)
        if shape is None:
            return None
        indices = literal_indices(model, index)
        sites = [(indices, None)] if indices is not None else indices_at_call_sites(model, index)
        if not sites:
            return None
        if axis_arg is None or isinstance(axis_arg, cst.Name) and axis_arg.value == "None":
            if any(d is None for d in shape):
                return None
            size = 1
            for d in shape:
                size *= d
            where = "the flattened array"
        else:
            axis = literal_int(axis_arg)
            if axis is None or not -len(shape) <= axis < len(shape) or shape[axis] is None:
                return None
            size = shape[axis]
            where = f"axis {axis}"
        i, site = next(((i, site) for indices, site in sites for i in indices if not -size <= i < size),
                       (None, None))
        if i is None:
            return None
        passed = "" if site is None else f" (`{self.source(index)}` from the call on line {model.line_of(site)})"
        return self.report(call, (
            f"index {i}{passed} is out of bounds for {where} of `{self.source(array)}` (size {size}), yet "
            f"`{self.source(call.func)}` raises no IndexError (NumPy does): its default mode fills "
            f"the result, with NaN for floats and the most negative int for integers; use an index "
            f"in range, or pass mode='clip', mode='wrap' or mode='fill', fill_value=... explicitly"),
            model.function_of(call))

    # ------------------------------------------------------------------ helpers
    def _out_of_bounds(self, array: cst.BaseExpression, elements) -> Optional[tuple[int, int, int]]:
        """(axis, index, size) of the first literal index out of range of `array`'s known shape."""
        shape = known_shape(self.model, array)
        if shape is None:
            return None
        for axis, el in enumerate(elements):
            if not isinstance(el.slice, cst.Index) or el.slice.star is not None:
                if isinstance(el.slice, cst.Slice):
                    continue  # a slice takes one axis and clips, as in NumPy
                return None
            value = el.slice.value
            if isinstance(value, cst.Ellipsis) or isinstance(value, cst.Name) and value.value == "None":
                return None  # the axes after `...` / `None` are counted differently
            indices = literal_indices(self.model, value)
            if indices is None:
                continue
            if axis >= len(shape) or shape[axis] is None:
                return None
            size = shape[axis]
            index = next((i for i in indices if not -size <= i < size), None)
            if index is not None:
                return axis, index, size
        return None

    def _written(self, sub: cst.Subscript) -> bool:
        """`x[5] = v` / `x[5] += v` / `del x[5]`: item assignment, JAX301's finding."""
        parent = self.model.parent(sub)
        if isinstance(parent, cst.AssignTarget) or isinstance(parent, cst.Del):
            return True
        return isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is sub


def _is_at(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Attribute) and expr.attr.value == "at"


def _clamped(index: int, size: int) -> int:
    return size - 1 if index >= size else 0
