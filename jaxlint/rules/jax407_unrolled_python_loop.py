"""JAX407: a long Python loop in traced code, unrolled into the compiled program (opt-in)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.constants import int_constant
from jaxlint.engine.cost import traced_operations
from jaxlint.engine.model import walk
from jaxlint.jax_api import (UNROLLED_LOOP_ITERATIONS, UNROLLED_LOOP_MIN_ITERATIONS,
                             UNROLLED_LOOP_OPERATIONS, array_module_function)
from jaxlint.rules.base import Rule


class UnrolledPythonLoop(Rule):
    code = "JAX407"
    name = "unrolled-python-loop"
    summary = ("a Python loop of 100+ iterations in traced code is unrolled: trace and compile "
               "time grow with its length")
    severity = "warning"
    default = False

    def check(self):
        model = self.model
        for loop in model.nodes(cst.For):
            func = model.abstract_function_of(loop)
            if func is None or loop.asynchronous is not None:
                continue
            count = self._iterations(loop.iter)
            if count is None or count < UNROLLED_LOOP_MIN_ITERATIONS or not self._traces_work(loop):
                continue
            size = ""
            if count < UNROLLED_LOOP_ITERATIONS:
                operations = count * traced_operations(model, loop.body)
                if operations < UNROLLED_LOOP_OPERATIONS:
                    continue
                size = f" (about {operations} operations)"
            yield self.report(loop.iter, (
                f"this Python loop runs {count} times while `{func.name}` is traced "
                f"{self._where(func)}: JAX unrolls it, tracing every iteration into the program{size}, "
                f"so compile time grows with the count (3 s for 1,000 iterations of a one-line "
                f"body on CPU, against 0.04 s as a loop); use `lax.fori_loop` or `lax.scan`, "
                f"which trace and compile the body once"), func)

    def _iterations(self, expr: cst.BaseExpression) -> Optional[int]:
        """`range(N)` / `range(a, b[, step])` with counts stated in the code."""
        model = self.model
        if not isinstance(expr, cst.Call) or model.qualname(expr.func) != "builtins.range":
            return None
        if any(a.keyword is not None or a.star for a in expr.args) or not 1 <= len(expr.args) <= 3:
            return None
        values = [int_constant(model, a.value) for a in expr.args]
        if any(v is None for v in values):
            return None
        if len(values) == 1:
            return max(values[0], 0)
        start, stop, step = values[0], values[1], values[2] if len(values) == 3 else 1
        if step == 0:
            return None
        return len(range(start, stop, step))

    def _traces_work(self, loop: cst.For) -> bool:
        """The body does JAX work on each iteration (a jnp / lax call, or arithmetic on a
        traced value); a loop that only builds Python values adds nothing to the program."""
        model = self.model
        for node in walk(loop.body):
            if isinstance(node, cst.Call) and array_module_function(model.qualname(node.func)):
                return True
            if isinstance(node, (cst.BinaryOperation, cst.Call, cst.Subscript)) and model.value(node).traced:
                return True
        return False

    @staticmethod
    def _where(func) -> str:
        kinds = {t for c in func.contexts.values() for t in c.transforms}
        return f"(under {', '.join(sorted(kinds))})" if kinds else "(under a JAX trace)"
