"""What a jitted call's argument puts in the compile cache key besides shapes and dtypes.

jit keys its cache on the values of its static arguments and on the static part of
each pytree argument, compared with `==`: the fields a class declares static
(`field(metadata={"static": True})`, `struct.field(pytree_node=False)`,
`eqx.field(static=True)`), the aux data its flatten function returns, and under
equinox's `filter_jit` every leaf that is not an array. A value made anew on each
evaluation that compares by identity (a lambda, the closures a factory returns, a
`jax.jit` wrapper, an optax transformation) never equals the one before: a call
given a new one traces and compiles again.
"""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint import jax_api

_FUNCTIONS = (cst.FunctionDef, cst.Lambda)


def static_parts(model, expr: cst.BaseExpression, whole: bool,
                 arrays_only: bool) -> Iterator[tuple[str, cst.BaseExpression]]:
    """(what it is, expression) for each part of the argument `expr` that is static:
    `expr` itself when its parameter is static (`whole`) or under `filter_jit`
    (`arrays_only`: a non-array there is static), and, for a constructor call of a
    pytree class of this file, the values of its static fields (of every field under
    `filter_jit`: the caller asks whether the value is an array)."""
    if whole or arrays_only:
        yield "", expr
    if not isinstance(expr, cst.Call):
        return
    klass = model.resolve_class(expr.func)
    if klass is None or not klass.pytree:
        return
    for name, value in constructor_fields(model, klass, expr).items():
        known = klass.fields.get(name)
        if known is not None and known.static or arrays_only:
            yield f"field `{name}` of `{klass.name}`", value


def constructor_fields(model, klass, call: cst.Call) -> dict[str, cst.BaseExpression]:
    """The expression each field of `klass` gets from `call` (`Cls(...)`): its argument,
    by dataclass field order when the class has no `__init__` of its own, else through
    `self.name = param` in `__init__`; a value `__init__` computes itself
    (`self.forward = jax.jit(fn)`) is evaluated on each construction, so it is that
    expression."""
    args = [a for a in call.args]
    if any(a.star for a in args):
        return {}
    init = model.class_method(klass, "__init__")
    if init is None:
        order = list(klass.fields)
        bound = _bind(order, args)
        return {name: value for name, value in bound.items() if name in klass.fields}
    if not isinstance(init.node, cst.FunctionDef) or not init.positional:
        return {}
    bound = _bind(init.positional[1:] + init.kwonly, args)
    me = init.positional[0]
    out: dict[str, cst.BaseExpression] = {}
    for stmt in init.node.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue  # a value set under an `if` may not be set: not followed
        for small in stmt.body:
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                continue
            target = small.targets[0].target
            if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                    and target.value.value == me):
                continue
            value = small.value
            if isinstance(value, cst.Name) and value.value in init.all_params:
                value = bound.get(value.value)
                if value is None:
                    continue  # a default: the same object each time
            out[target.attr.value] = value
    return out


def _bind(names: list[str], args) -> dict[str, cst.BaseExpression]:
    bound = {}
    i = 0
    for arg in args:
        if arg.keyword is not None:
            bound[arg.keyword.value] = arg.value
        elif i < len(names):
            bound[names[i]] = arg.value
            i += 1
    return bound


def fresh_object(model, expr: cst.BaseExpression) -> Optional[str]:
    """What is new, when evaluating `expr` makes an object unequal to the one the last
    evaluation made; None when it may compare equal (a number, a string, a def of the
    module, a frozen dataclass) or when it is not known."""
    if isinstance(expr, cst.Lambda):
        return "a new lambda"
    if not isinstance(expr, cst.Call):
        return None
    q = model.qualname(expr.func)
    if q in jax_api.FRESH_OBJECT_CALLS:
        return f"a new `{q.rsplit('.', 1)[-1]}(...)` object (compared by identity)"
    factory = model.resolve_function(expr.func) if isinstance(expr.func, cst.Name) else None
    if factory is not None and isinstance(factory.node, cst.FunctionDef) and _returns_closures(factory):
        return f"new closures from `{factory.name}(...)` (compared by identity)"
    return None


def _returns_closures(factory) -> bool:
    """Every `return` of `factory` gives a function nested in it, alone or in a tuple or
    call (`GradientTransformation(init_fn, update_fn)`): each call makes new ones."""
    nested = {child.name for child in factory.children if not child.is_lambda}
    returns = list(_own_returns(factory.node))
    if not returns:
        return False
    for ret in returns:
        value = ret.value
        parts = [value]
        if isinstance(value, (cst.Tuple, cst.List)):
            parts = [el.value for el in value.elements]
        elif isinstance(value, cst.Call):
            parts = [a.value for a in value.args]
        if not any(isinstance(p, cst.Lambda) or isinstance(p, cst.Name) and p.value in nested
                   for p in parts):
            return False
    return True


def _own_returns(func: cst.FunctionDef) -> Iterator[cst.Return]:
    """The `return` statements of `func` itself, not of the functions nested in it."""
    stack = [func.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return):
            yield node
        elif not isinstance(node, _FUNCTIONS):
            stack.extend(node.children)
