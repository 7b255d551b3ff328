"""JAX205: indexing with a traced boolean mask (`x[x < 0]`, `x.at[mask]`)."""

from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import TracedValueRule


class BooleanMaskIndex(TracedValueRule):
    code = "JAX205"
    name = "boolean-mask-index"
    summary = "Indexing with a traced boolean mask raises NonConcreteBooleanIndexError"
    raises = "NonConcreteBooleanIndexError"

    def check(self):
        model = self.model
        for sub in model.nodes(cst.Subscript):
            base = model.value(sub.value)
            is_at = isinstance(sub.value, cst.Attribute) and sub.value.attr.value == "at"
            if not (base.traced or is_at and model.value(sub.value.value).traced):
                continue
            for el in sub.slice:
                if not isinstance(el.slice, cst.Index):
                    continue
                idx = el.slice.value
                v = model.value(idx)
                func = self.traced(idx)
                if func is None or not v.boolean:
                    continue
                target = self.source(sub.value.value if is_at else sub.value)
                mask = self.source(idx)
                if is_at:
                    fix = f"use {target} = jnp.where({mask}, new_value, {target})"
                else:
                    fix = (f"use jnp.where({mask}, {target}, 0) to keep the shape, "
                           f"or jnp.nonzero({mask}, size=N) for a fixed-size result")
                yield self.report(sub, (
                    f"boolean mask `{mask}` has a data-dependent size and raises "
                    f"NonConcreteBooleanIndexError {self.where(func)}; {fix}"), func)
                break
