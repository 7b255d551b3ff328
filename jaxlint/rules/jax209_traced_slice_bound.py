"""JAX209: a slice of an array whose start, stop or step is traced (`x[i:i + 3]`)."""

from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import TracedValueRule


class TracedSliceBound(TracedValueRule):
    code = "JAX209"
    name = "traced-slice-bound"
    summary = "x[i:i + 3] with a traced i raises IndexError: slice bounds must be static"
    raises = "IndexError"

    def check(self):
        model = self.model
        for sub in model.nodes(cst.Subscript):
            is_at = isinstance(sub.value, cst.Attribute) and sub.value.attr.value == "at"
            base = sub.value.value if is_at else sub.value
            v = model.value(base)
            if not (v.maybe_tracer or v.array):
                continue
            for el in sub.slice:
                if not isinstance(el.slice, cst.Slice):
                    continue
                bounds = [b for b in (el.slice.lower, el.slice.upper, el.slice.step) if b is not None]
                traced = [(b, f) for b in bounds if (f := self.traced(b)) is not None]
                if not traced:
                    continue
                bound, func = traced[0]
                yield self.report(sub, (
                    f"slice bound `{self.source(bound)}` is traced: `{self.source(sub)}` raises "
                    f"IndexError (Slice entries must be static integers) {self.where(func)}, as the "
                    f"result's size must be known at trace time; for a window of fixed size at a "
                    f"traced start use lax.dynamic_slice({self.source(base)}, (start,), (size,)) "
                    f"(or lax.dynamic_update_slice to write one){self.static_hint(func, bound)}"), func)
                break
