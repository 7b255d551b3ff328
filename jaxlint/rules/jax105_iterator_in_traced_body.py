"""JAX105: a Python iterator from outside the trace, consumed inside a jitted function or lax body."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.rules._impurity import outlives_trace, trace_time_function, where
from jaxlint.rules.base import Rule

#: Calls that return a one-shot iterator (consumed as it is read).
_ITERATOR_FACTORIES = frozenset({
    "builtins.iter", "builtins.map", "builtins.filter", "builtins.zip", "builtins.enumerate",
    "builtins.reversed",
})
_ITERATOR_MODULES = ("itertools",)


class IteratorInTracedBody(Rule):
    code = "JAX105"
    name = "iterator-in-traced-body"
    summary = "an outside iterator consumed in a jitted function or lax body advances only at trace time"
    confirm_kind = "iterator"

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            it = self._next_target(call)
            if it is not None:
                yield from self._flag(call, it, f"`{self.source(call)}`")
        for loop in model.nodes(cst.For):
            if isinstance(loop.iter, cst.Name) and self._is_iterator(loop.iter):
                yield from self._flag(loop.iter, loop.iter, f"`for` over iterator `{loop.iter.value}`")

    def _next_target(self, call: cst.Call) -> Optional[cst.Name]:
        q = self.model.qualname(call.func)
        if q == "builtins.next" and call.args and isinstance(call.args[0].value, cst.Name):
            return call.args[0].value
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "__next__" \
                and isinstance(func.value, cst.Name):
            return func.value
        return None

    def _flag(self, node, it: cst.Name, what: str):
        model = self.model
        # jit / pmap / lax bodies run the Python code once, when traced.
        func = trace_time_function(model, node, "cached")
        if func is None or outlives_trace(model, it, func) is None:
            return
        msg = (f"{what} {where(func)} runs only while tracing: every iteration and every later "
               f"call reuse the items read then; index an array instead (xs[i] in a fori_loop "
               f"body) or pass the items in as arguments")
        yield self.report(node, msg, func, iterator=it.value)

    def _is_iterator(self, name: cst.Name) -> bool:
        """A name bound only to iter(...), a generator expression or a generator function call."""
        model = self.model
        bindings = model.scope_of(name).lookup(name.value)
        if not bindings:
            return False
        for b in bindings:
            value = getattr(b.node, "value", None)
            if b.kind != "assign" or not isinstance(b.node, (cst.Assign, cst.AnnAssign)) \
                    or not self._makes_iterator(value):
                return False
        return True

    def _makes_iterator(self, value) -> bool:
        model = self.model
        if isinstance(value, cst.GeneratorExp):
            return True
        if not isinstance(value, cst.Call):
            return False
        q = model.qualname(value.func)
        if q in _ITERATOR_FACTORIES or (q and q.split(".")[0] in _ITERATOR_MODULES):
            return True
        callee = model.resolve_function(value.func)
        return callee is not None and _is_generator(model, callee)


def _is_generator(model, info) -> bool:
    for y in model.nodes(cst.Yield):
        if model.function_of(y) is info:
            return True
    return False
