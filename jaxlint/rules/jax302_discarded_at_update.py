"""JAX302: `x.at[i].set(v)` as a bare statement: the new array is dropped, `x` is unchanged."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jaxlint import jax_api
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
        notebook = model.path.endswith(".ipynb")
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
            if notebook and func is None:
                continue  # a notebook displays a cell's last expression: not dropped
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
