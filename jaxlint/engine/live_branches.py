"""Which arm of a branch in a traced function the trace runs.

A trace runs Python: an `if` whose test is a Python value takes one arm, and only that
arm's operations are traced. When the test has the same value in every trace of the
function, the other arm is never traced (it may still run eagerly, for a caller outside
any transform). The test is known from Python values that are static there:

- a parameter that every traced run of the function is given the same constant: each
  traced caller passes that literal (or leaves the default), a caller's own parameter
  followed up the same way; for a jitted function, each call of it passes the literal
  to a `static_argnums` / `static_argnames` parameter or leaves the default (jit
  applies Python's defaults, untraced; checked, jax 0.10.2);
- a module-level name bound once, to a literal (`DEBUG = False`);
- `isinstance(x, jax.core.Tracer)` on a traced array: true in every trace (jit, vmap,
  grad); `isinstance(x, (int, np.ndarray))` on one: false;
- `xp is np` on a parameter that every traced caller hands the same module.

Anything else is unknown, and both arms stay live. Eager calls are not traced runs:
the function's trace contexts (`FunctionInfo.contexts`) name only its traced callers.
"""

from __future__ import annotations

import operator
from typing import Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.functions import FunctionInfo, ViaKind
from jaxlint.engine.scopes import BindingKind

_UNKNOWN = object()
_DEPTH = 4
_NAMED_CONSTANTS = {"True": True, "False": False, "None": None}
_COMPARE = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge,
    cst.Is: operator.is_, cst.IsNot: operator.is_not,
    cst.In: lambda a, b: a in b, cst.NotIn: lambda a, b: a not in b,
}
# `isinstance(x, T)` with these is false for a tracer (a tracer is a jax.Array, never
# a Python scalar or a NumPy array).
_NEVER_TRACERS = frozenset({
    "builtins.int", "builtins.float", "builtins.bool", "builtins.complex", "builtins.str",
}) | jax_api.NUMPY_VALUE_TYPES


def test_outcome(model, func: Optional[FunctionInfo], test: cst.BaseExpression, env: dict) -> Optional[bool]:
    """The truth of `test` in every trace of `func` (its parameters' values in `env`),
    or None when `func` is not traced or the test is not known in each of them."""
    if func is None or not func.traced:
        return None
    got = _evaluate(model, func, test, env, 0)
    if got is _UNKNOWN:
        return None
    try:
        return bool(got)
    except Exception:  # noqa: BLE001 - a constant whose truth is not a plain bool
        return None


def _evaluate(model, func: FunctionInfo, expr: cst.BaseExpression, env: Optional[dict], depth: int):
    """The Python value `expr` has in every trace of `func`, or _UNKNOWN."""
    if depth > _DEPTH:
        return _UNKNOWN
    if isinstance(expr, cst.Name):
        if expr.value in _NAMED_CONSTANTS and model.scope_of(expr).lookup(expr.value) is None:
            return _NAMED_CONSTANTS[expr.value]
        return _name_value(model, func, expr, depth)
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        try:
            return expr.evaluated_value
        except Exception:  # noqa: BLE001 - a literal Python cannot read
            return _UNKNOWN
    if isinstance(expr, cst.UnaryOperation):
        inner = _evaluate(model, func, expr.expression, env, depth)
        if inner is _UNKNOWN:
            return _UNKNOWN
        if isinstance(expr.operator, cst.Not):
            return not inner
        if isinstance(expr.operator, cst.Minus) and isinstance(inner, (int, float)):
            return -inner
        return _UNKNOWN
    if isinstance(expr, cst.BooleanOperation):
        left = _evaluate(model, func, expr.left, env, depth)
        if left is _UNKNOWN:
            return _UNKNOWN
        # Python's short circuit: `a and b` is `a` when `a` is false, else `b`.
        if isinstance(expr.operator, cst.And):
            return _evaluate(model, func, expr.right, env, depth) if left else left
        return left if left else _evaluate(model, func, expr.right, env, depth)
    if isinstance(expr, (cst.Tuple, cst.List)):
        items = [_evaluate(model, func, el.value, env, depth) for el in expr.elements
                 if not isinstance(el, cst.StarredElement)]
        if len(items) != len(expr.elements) or any(v is _UNKNOWN for v in items):
            return _UNKNOWN
        return tuple(items)
    if isinstance(expr, cst.Comparison):
        return _comparison(model, func, expr, env, depth)
    if isinstance(expr, cst.Call) and env is not None:
        return _tracer_check(model, expr, env)
    return _UNKNOWN


def _comparison(model, func, expr: cst.Comparison, env, depth: int):
    module = _module_comparison(model, func, expr)
    if module is not None:
        return module
    left = _evaluate(model, func, expr.left, env, depth)
    if left is _UNKNOWN:
        return _UNKNOWN
    for comp in expr.comparisons:
        op = _COMPARE.get(type(comp.operator))
        right = _evaluate(model, func, comp.comparator, env, depth)
        if op is None or right is _UNKNOWN:
            return _UNKNOWN
        try:
            if not op(left, right):
                return False
        except Exception:  # noqa: BLE001 - `1 < "a"`: Python raises, nothing known
            return _UNKNOWN
        left = right
    return True


def _module_comparison(model, func: FunctionInfo, test: cst.Comparison) -> Optional[bool]:
    """`if xp is np:` on a parameter that every traced caller hands `jnp` (or `np`)."""
    if len(test.comparisons) != 1:
        return None
    comp = test.comparisons[0]
    if isinstance(comp.operator, (cst.Is, cst.Equal)):
        same = True
    elif isinstance(comp.operator, (cst.IsNot, cst.NotEqual)):
        same = False
    else:
        return None
    for name, other in ((test.left, comp.comparator), (comp.comparator, test.left)):
        if not isinstance(name, cst.Name) or name.value not in func.all_params \
                or len(func.scope.bindings.get(name.value, ())) != 1:
            continue
        bindings = model.scope_of(other).lookup(other.value) if isinstance(other, cst.Name) else None
        if not bindings or len(bindings) != 1 or bindings[0].kind != BindingKind.IMPORT:
            continue
        from jaxlint.engine.callees import traced_modules

        held = traced_modules(model, func, name.value)
        q = model.qualname(other)
        if not held or len(held) != 1 or not held <= jax_api.BACKEND_MODULES \
                or q not in jax_api.BACKEND_MODULES:
            return None
        return (q in held) == same
    return None


def _tracer_check(model, call: cst.Call, env: dict):
    """`isinstance(x, jax.core.Tracer)` / `jax.core.is_concrete(x)` where `x` holds a
    traced array in every trace."""
    q = model.qualname(call.func)
    args = [a.value for a in call.args if a.keyword is None and not a.star]
    if len(args) != len(call.args) or not args or not isinstance(args[0], cst.Name):
        return _UNKNOWN
    held = env.get(args[0].value)
    if held is None or not held.tracer:
        return _UNKNOWN
    if q in jax_api.CONCRETENESS_CHECKS and len(args) == 1:
        func = model.function_of(call)
        # grad's tracers hold concrete values; only an abstract trace makes it false.
        if func is not None and func.contexts and all(c.abstract for c in func.contexts.values()):
            return False
        return _UNKNOWN
    if q != "builtins.isinstance" or len(args) != 2:
        return _UNKNOWN
    types = args[1]
    elems = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
    quals = [model.qualname(e) for e in elems]
    if any(t in jax_api.TRACER_TYPES for t in quals):
        return True
    if quals and all(t in _NEVER_TRACERS for t in quals):
        return False
    return _UNKNOWN


def _name_value(model, func: FunctionInfo, name: cst.Name, depth: int):
    bindings = model.scope_of(name).lookup(name.value)
    if not bindings or len(bindings) != 1:
        return _UNKNOWN
    binding = bindings[0]
    if binding.kind == BindingKind.PARAM:
        owner = _owner_of(func, name.value)
        return _parameter_value(model, owner, name.value, depth) if owner is not None else _UNKNOWN
    if binding.kind == BindingKind.ASSIGN and model.module_scope.bindings.get(name.value) is bindings \
            and name.value not in model.global_writes:
        node = binding.node
        if isinstance(node, cst.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name) and _literal(node.value):
            return _evaluate(model, func, node.value, None, depth + 1)
    return _UNKNOWN


def _literal(expr: cst.BaseExpression) -> bool:
    """A constant stated outright (`False`, `"train"`, `-1`), not computed."""
    if isinstance(expr, cst.UnaryOperation):
        return _literal(expr.expression)
    if isinstance(expr, cst.Name):
        return expr.value in _NAMED_CONSTANTS
    return isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString))


_CONSTANTS = (bool, int, float, str, type(None))


def constant_parameter(model, func: FunctionInfo, param: str) -> tuple[bool, object]:
    """(True, value) when every traced run of `func` gives `param` the same Python constant
    (`for_jit=True` at each jitted caller, a static argument passed as one literal): a
    Python value in the program's every trace, never a tracer. (False, None) otherwise."""
    value = _parameter_value(model, func, param, 0)
    if value is _UNKNOWN or not isinstance(value, _CONSTANTS):
        return False, None
    return True, value


def _owner_of(func: FunctionInfo, param: str) -> Optional[FunctionInfo]:
    """The function (`func` or one enclosing it) whose parameter `param` a read in `func` sees."""
    cur = func
    while cur is not None and param not in cur.scope.bindings:
        cur = cur.enclosing
    if cur is None or param not in cur.all_params or param in (cur.vararg, cur.kwarg) \
            or len(cur.scope.bindings[param]) != 1:
        return None
    return cur


def _parameter_value(model, func: FunctionInfo, param: str, depth: int):
    """The constant every traced run of `func` gives `param`, or _UNKNOWN."""
    if not func.contexts:
        return _UNKNOWN
    values = []
    for ctx in func.contexts.values():
        if ctx.via is ViaKind.HELPER:
            got = _passed_at(model, func, param, ctx.origin, depth)
        elif ctx.via in (ViaKind.DECORATOR, ViaKind.WRAPPER) and "*" not in ctx.static:
            got = _passed_to_jitted(model, func, param, ctx, depth)
        else:
            return _UNKNOWN
        if got is _UNKNOWN:
            return _UNKNOWN
        values.extend(got)
    first = values[0] if values else _UNKNOWN
    if first is _UNKNOWN or any(type(v) is not type(first) or v != first for v in values):
        return _UNKNOWN
    return first


def _passed_at(model, func: FunctionInfo, param: str, call, depth: int):
    """What the traced call `call` gives `param` of `func`, as a one-item list, or _UNKNOWN."""
    if not isinstance(call, cst.Call):
        return _UNKNOWN
    shift = _shift(model, func, call)
    if shift is None:
        return _UNKNOWN
    from jaxlint.engine.callees import argument_for

    arg = argument_for(call, func, param, shift)
    caller = model.function_of(call)
    if arg is None:
        if any(a.star for a in call.args) or param not in func.defaults:
            return _UNKNOWN
        arg, caller = func.defaults[param], func.enclosing  # evaluated where the def runs
    if caller is None:
        got = _evaluate(model, func, arg, None, depth + 1) if _literal(arg) or isinstance(arg, cst.Name) \
            else _UNKNOWN
    else:
        got = _evaluate(model, caller, arg, None, depth + 1)
    return _UNKNOWN if got is _UNKNOWN else [got]


def _shift(model, func: FunctionInfo, call: cst.Call) -> Optional[int]:
    """How many of `func`'s positional parameters `call` fills before its arguments."""
    if model.resolve_function(call.func) is func:
        return 0
    return dict(_call_sites(model, func)).get(call)


def _call_sites(model, func: FunctionInfo) -> list:
    """`callees.call_sites`, once per function: the calls of a file do not change while
    its values are worked out."""
    from jaxlint.engine.callees import call_sites

    cache = model.__dict__.setdefault("_live_call_sites", {})
    found = cache.get(func)
    if found is None:
        found = cache[func] = call_sites(model, func)
    return found


def _passed_to_jitted(model, func: FunctionInfo, param: str, ctx, depth: int):
    """The constants every call of the jitted `func` gives `param`: a literal to a static
    parameter, or the default left in place. _UNKNOWN when a call passes it traced, or
    when the jitted function is used other than by calls of this file."""
    from jaxlint.engine.callees import argument_for, transformed_call_sites

    if ctx.via is ViaKind.DECORATOR:
        sites = _call_sites(model, func)
        name = func.name
    else:
        sites = [(c, s) for c, s in transformed_call_sites(model, func)
                 if _wraps(model, c, ctx.origin)]
        parent = model.parent(ctx.origin)
        if isinstance(parent, cst.Call) and parent.func is ctx.origin:
            name = None  # `jax.jit(f)(x)`: called where it is made
        elif isinstance(parent, cst.Assign) and len(parent.targets) == 1 \
                and isinstance(parent.targets[0].target, cst.Name):
            name = parent.targets[0].target.value
        else:
            return _UNKNOWN
    if not sites or (name is not None and not _only_called(model, name, [c for c, _ in sites], func)):
        return _UNKNOWN
    out = []
    for call, shift in sites:
        if any(a.star for a in call.args):
            return _UNKNOWN
        arg = argument_for(call, func, param, shift)
        if arg is None:
            if param not in func.defaults:
                return _UNKNOWN
            got = _evaluate(model, func, func.defaults[param], None, depth + 1) \
                if _literal(func.defaults[param]) else _UNKNOWN
        elif param in ctx.static:
            caller = model.function_of(call)
            got = _evaluate(model, caller, arg, None, depth + 1) if caller is not None \
                else (_evaluate(model, func, arg, None, depth + 1) if _literal(arg) else _UNKNOWN)
        else:
            return _UNKNOWN  # passed to jit unmarked: a tracer, whatever the caller passed
        if got is _UNKNOWN:
            return _UNKNOWN
        out.append(got)
    return out


def _wraps(model, call: cst.Call, origin) -> bool:
    """`call` runs the wrapper `origin` made (`jax.jit(f)(x)`, or `jf(x)` with `jf = jax.jit(f)`)."""
    if call.func is origin:
        return True
    values = model.assigned_values(call.func) if isinstance(call.func, cst.Name) else None
    return values is not None and len(values) == 1 and values[0] is origin


def _only_called(model, name: str, calls: list, func: FunctionInfo) -> bool:
    """Every mention of `name` in this file is one of `calls` (or its def, or the name
    the wrap binds): the jitted function is not handed on, so these are all its runs."""
    cache = model.__dict__.setdefault("_only_called", {})
    key = (name, func, tuple(id(c) for c in calls))
    if key not in cache:
        cache[key] = _mentions_are_calls(model, name, calls, func)
    return cache[key]


def _mentions_are_calls(model, name: str, calls: list, func: FunctionInfo) -> bool:
    callees = {id(c.func) for c in calls}
    for node in model.nodes(cst.Name):
        if node.value != name or id(node) in callees:
            continue
        parent = model.parent(node)
        if parent is func.node or isinstance(parent, cst.AssignTarget):
            continue
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            if id(parent) in callees or not func.is_method:
                continue  # `jnp.linalg.norm` names an attribute, not the function `norm`
        return False
    return True
