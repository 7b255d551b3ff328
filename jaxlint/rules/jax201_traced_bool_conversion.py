"""JAX201: Python truth-testing of a traced value (`if`, `while`, `and`, `not`, `min`)."""

from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import TracedValueRule

_FIX = {
    "if": "use jnp.where(cond, a, b) or lax.cond",
    "elif": "use jnp.where(cond, a, b) or lax.cond",
    "conditional expression": "use jnp.where(cond, a, b) or lax.cond",
    "while": "use lax.while_loop or lax.fori_loop",
    "assert": "use checkify.check or jax.debug.print, or assert on shapes only",
    "bool()": "keep it as an array and use jnp.where / lax.cond",
    "not": "use jnp.logical_not",
    "and": "use jnp.logical_and / jnp.where",
    "or": "use jnp.logical_or / jnp.where (e.g. jnp.where(s == 0, 1.0, s) for `s or 1.0`)",
    "chained comparison": "use (a < x) & (x < b)",
    "min()": "use jnp.minimum",
    "max()": "use jnp.maximum",
}


class TracedBoolConversion(TracedValueRule):
    code = "JAX201"
    name = "traced-bool-conversion"
    summary = "Python truth-testing of a traced value raises TracerBoolConversionError"
    raises = "TracerBoolConversionError"

    def check(self):
        model = self.model
        self._seen = set()
        for node in model.nodes(cst.If):
            kind = "elif" if isinstance(model.parent(node), cst.If) else "if"
            yield from self._test(node.test, kind)
        for node in model.nodes(cst.While):
            yield from self._test(node.test, "while")
        for node in model.nodes(cst.IfExp):
            yield from self._test(node.test, "conditional expression")
        for node in model.nodes(cst.Assert):
            yield from self._test(node.test, "assert")
        for node in model.nodes(cst.BooleanOperation):
            # Python truth-tests the left operand; the right one is only returned.
            op = "and" if isinstance(node.operator, cst.And) else "or"
            yield from self._test(node.left, op)
        for node in model.nodes(cst.UnaryOperation):
            if isinstance(node.operator, cst.Not):
                yield from self._test(node.expression, "not")
        for node in model.nodes(cst.Comparison):
            if len(node.comparisons) > 1 and self.traced(node):
                first = node.comparisons[0].comparator
                if self.model.value(node.left).maybe_tracer or self.model.value(first).maybe_tracer:
                    yield from self._flag(node, "chained comparison")
        for node in model.nodes(cst.Call):
            q = model.qualname(node.func)
            if q == "builtins.bool" and node.args:
                yield from self._test(node.args[0].value, "bool()")
            elif q in ("builtins.min", "builtins.max") and node.args:
                if any(self.traced(a.value) for a in node.args if a.keyword is None):
                    yield from self._flag(node, q[9:] + "()")

    def _test(self, expr, kind):
        # `a and b` / `not a` in a test are truth-tested operand by operand.
        if isinstance(expr, cst.BooleanOperation):
            yield from self._test(expr.left, kind)
            yield from self._test(expr.right, kind)
            return
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            yield from self._test(expr.expression, kind)
            return
        if isinstance(expr, cst.Comparison) and len(expr.comparisons) > 1:
            return  # reported as a chained comparison
        if self.traced_leaf(expr):
            yield from self._flag(expr, kind)

    def _flag(self, expr, kind):
        if expr in self._seen:
            return
        self._seen.add(expr)
        func = self.model.function_of(expr)
        what = {"conditional expression": "a conditional expression",
                "chained comparison": "a chained comparison",
                "bool()": "`bool()`", "min()": "builtin `min()`", "max()": "builtin `max()`"}.get(kind, f"`{kind}`")
        msg = (f"{what} on traced value `{self.source(expr)}` raises TracerBoolConversionError "
               f"{self.where(func)}; {_FIX[kind]}{self.static_hint(func, expr)}")
        yield self.report(expr, msg, func)
