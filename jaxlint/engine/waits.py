"""Which functions of this file wait on the host for a device value when they run.

A JAX call returns before its work is done; the host waits only where it needs a
value: a conversion (`float(e)`, `x.item()`, `np.asarray(x)`), an explicit
`block_until_ready`, or Python control flow on an array (`if abs(e - e_old) < tol:`
converts the comparison's array to a bool). A function of this file that does one of
these, itself or through a function of this file it calls eagerly, makes every caller
wait there too: a timer around the call holds the work done before the wait.

What counts as a waiting call is the caller's table (`blocking`); this module follows
the calls and reads the tests.
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from jaxlint.engine.callees import called_function
from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.model import walk

_DEPTH = 4
#: Builtins whose result carries their argument's value into a test (`abs(e) < tol`).
_VALUE_KEEPING = frozenset({"builtins.abs", "builtins.bool"})


def reads_array(model, expr: cst.BaseExpression) -> bool:
    """Whether evaluating `expr` as a truth value needs a JAX array's value: an array, or
    arithmetic, a comparison (`<`, `==`, not `is`), `not`, `and` / `or` or `abs` of one.
    `x.shape[0] > 3`, `len(xs) < 10` and `x is None` read no array's value."""
    if model.value(expr).array:
        return True
    if isinstance(expr, cst.BooleanOperation):
        return reads_array(model, expr.left) or reads_array(model, expr.right)
    if isinstance(expr, cst.UnaryOperation):
        return reads_array(model, expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return reads_array(model, expr.left) or reads_array(model, expr.right)
    if isinstance(expr, cst.Comparison):
        if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons):
            return False
        return reads_array(model, expr.left) or any(reads_array(model, c.comparator) for c in expr.comparisons)
    if isinstance(expr, cst.Call) and model.qualname(expr.func) in _VALUE_KEEPING and len(expr.args) == 1:
        return reads_array(model, expr.args[0].value)
    return False


def function_waits(model, info: FunctionInfo, blocking: Callable[[cst.Call], bool],
                   depth: int = 0, seen: Optional[set] = None) -> bool:
    """Whether a run of `info`, called eagerly, waits on the host for a device value: a
    call `blocking` says waits, an `if` / `while` / conditional expression whose test
    reads an array (`reads_array`), or a call of a function of this file that waits
    (a few levels deep). A traced function is left out: under a trace a conversion
    fails and `print` shows a tracer, so nothing there waits."""
    if depth > _DEPTH or info.traced:
        return False
    if seen is None:  # asked from outside: answered once per function and table
        cache = model.__dict__.setdefault("_function_waits", {})
        key = (info.node, blocking)
        if key not in cache:
            cache[key] = function_waits(model, info, blocking, depth, set())
        return cache[key]
    if info.node in seen:
        return False
    seen.add(info.node)
    for node in walk(info.node.body):
        if model.function_of(node) is not info or model.traced_function_of(node) is not None:
            continue
        if isinstance(node, (cst.If, cst.While, cst.IfExp)) and reads_array(model, node.test):
            return True
        if not isinstance(node, cst.Call):
            continue
        if blocking(node):
            return True
        callee = called_function(model, node)
        if callee is not None and callee is not info and not callee.is_lambda \
                and function_waits(model, callee, blocking, depth + 1, seen):
            return True
    return False
