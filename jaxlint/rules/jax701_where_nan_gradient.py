"""JAX701: `jnp.where(cond, jnp.sqrt(x), y)` in a differentiated function: NaN gradient."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint.engine.model import children

from jaxlint.jax_api import (FORWARD_ONLY_TRANSFORMS, NAN_GRADIENT_FUNCTIONS, NAN_GRADIENT_POWERS,
                             NAN_GRADIENT_SAFE_WRAPPERS)
from jaxlint.rules.base import Rule

_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


class WhereNanGradient(Rule):
    code = "JAX701"
    name = "where-nan-gradient"
    summary = ("jnp.where(cond, jnp.sqrt(x), 0) under grad: the untaken branch's inf derivative "
               "makes the gradient NaN")
    # Nothing raises at run time: the page's examples end with
    # `assert not jnp.isnan(g)`, which fails.
    raises = "AssertionError"

    def report(self, node, message, function=None, expected=None, **confirm):
        out = super().report(node, message, function, expected, **confirm)
        out.confirm.pop("expected", None)  # the code itself raises nothing: confirm has no recipe
        return out

    def check(self):
        model = self.model
        reported = set()  # an operation bound to a name may reach several wheres
        for call in model.nodes(cst.Call):
            if model.qualname(call.func) != "jax.numpy.where":
                continue
            if len(call.args) != 3 or any(a.keyword is not None or a.star for a in call.args):
                continue
            func = model.function_of(call)
            if func is None or not _reverse_mode(func):
                continue
            cond = call.args[0].value
            guarded = _names(cond)
            if not guarded:
                continue
            safe = _safe_names(func.node)
            for branch in (call.args[1].value, call.args[2].value):
                for op, arg in _risky_through_names(model, func, branch):
                    names = _names(arg) & guarded
                    if not names or names <= safe or _is_safe(model, arg, guarded) or op in reported:
                        continue
                    value = model.value(arg)
                    if value.static or not (value.maybe_tracer or names & _traced_names(func)):
                        continue
                    reported.add(op)
                    yield self.report(op, (
                        f"`{self.source(op)}` is differentiated where jnp.where does not take it: "
                        f"under {_reverse_description(func)}, 0 times its inf derivative "
                        f"makes the gradient NaN; make the argument safe first "
                        f"(`safe = jnp.where(cond, {self.source(arg)}, 1.0)`) and use it in the "
                        f"branch (the double-where pattern)"), func)
                    break


def _reverse_mode(func) -> bool:
    """Traced by grad / value_and_grad / jacrev / vjp, directly or as a helper."""
    return any(c.differentiates and not set(c.transforms) <= FORWARD_ONLY_TRANSFORMS
               for c in func.contexts.values())


def _reverse_description(func) -> str:
    """The reverse-mode transform to name in the message (`grad`, `jit(grad)`, `jacrev`)."""
    for c in func.contexts.values():
        if c.differentiates and not set(c.transforms) <= FORWARD_ONLY_TRANSFORMS:
            return c.describe()
    return "grad"


def _traced_names(func) -> set[str]:
    """Traced parameters, and the names the function binds from them (under grad,
    `d2 = jnp.sum(x ** 2)` is a tracer too; the value analysis calls it concrete)."""
    out = {p for p, v in func.param_values.items() if v.traced}
    assigns = []
    stack = children(func.node)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and node.value is not None:
            targets = ([t.target for t in node.targets] if isinstance(node, cst.Assign)
                       else [node.target])
            assigns.append((_names(node.value), {n for t in targets for n in _names(t)}))
        stack.extend(children(node))
    changed = True
    while changed:
        changed = False
        for used, bound in assigns:
            if used & out and not bound <= out:
                out |= bound
                changed = True
    return out


def _names(expr: cst.CSTNode) -> set[str]:
    out: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(node.value)
        elif isinstance(node, _NESTED):
            continue
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        else:
            stack.extend(children(node))
    return out


def _number(expr: cst.BaseExpression) -> Optional[float]:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        inner = _number(expr.expression)
        if inner is None:
            return None
        return -inner if isinstance(expr.operator, cst.Minus) else inner
    if isinstance(expr, (cst.Integer, cst.Float)):
        try:
            return float(expr.evaluated_value)
        except (ValueError, OverflowError):
            return None
    return None


def _bad_exponent(expr: cst.BaseExpression) -> bool:
    """A literal exponent with an infinite derivative at 0: fractional or negative."""
    p = _number(expr)
    return p is not None and (p < 0 or (p != int(p) and p < 1))


def _risky(model, expr: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.BaseExpression]]:
    """(operation, its risky argument) for each out-of-range-derivative op in `expr`."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, cst.Call):
            q = model.qualname(node.func)
            pos = [a.value for a in node.args if a.keyword is None and not a.star]
            if q in NAN_GRADIENT_FUNCTIONS and pos:
                yield node, pos[0]
            elif q in NAN_GRADIENT_POWERS and len(pos) >= 2 and _bad_exponent(pos[1]):
                yield node, pos[0]
        elif isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.Divide):
                yield node, node.right
            elif isinstance(node.operator, cst.Power) and _bad_exponent(node.right):
                yield node, node.left
        stack.extend(children(node))


def _risky_through_names(model, func, branch: cst.BaseExpression):
    """`_risky` of the branch, and of the value of a branch name bound once earlier in the
    same function: `y = jnp.sqrt(x)` ... `jnp.where(x > 0, y, 0.)` is the same NaN."""
    yield from _risky(model, branch)
    if not isinstance(branch, cst.Name):
        return
    values = model.assigned_values(branch)
    if values is None or len(values) != 1 or model.function_of(values[0]) is not func:
        return
    yield from _risky(model, values[0])


def _is_safe(model, expr: cst.BaseExpression, guarded: set[str]) -> bool:
    """Kept in range: a where / maximum / clip, or `x + eps` (an offset not in the condition)."""
    if isinstance(expr, cst.Call):
        return model.qualname(expr.func) in NAN_GRADIENT_SAFE_WRAPPERS
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
        for side in (expr.left, expr.right):
            if _number(side) is not None:
                return True
            if isinstance(side, cst.Name) and side.value not in guarded:
                return True
    return False


def _safe_names(func_node: cst.CSTNode) -> set[str]:
    """Names the function binds from a safe expression (`safe = jnp.where(c, x, 1.0)`)."""
    out: set[str] = set()
    stack = children(func_node)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and node.value is not None:
            value = node.value
            if isinstance(value, cst.Call) or isinstance(value, cst.BinaryOperation):
                targets = ([t.target for t in node.targets] if isinstance(node, cst.Assign)
                           else [node.target])
                for t in targets:
                    if isinstance(t, cst.Name) and _looks_safe(value):
                        out.add(t.value)
        stack.extend(children(node))
    return out


def _looks_safe(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.Call):
        func = value.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        return name in {"where", "maximum", "clip", "max", "clamp"}
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract)):
        return _number(value.left) is not None or _number(value.right) is not None
    return False
