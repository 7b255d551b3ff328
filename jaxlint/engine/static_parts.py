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
from jaxlint.engine.classes import hashed_by_identity

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
        bound = bind_arguments(order, args)
        return {name: value for name, value in bound.items() if name in klass.fields}
    if not isinstance(init.node, cst.FunctionDef) or not init.positional:
        return {}
    bound = bind_arguments(init.positional[1:] + init.kwonly, args)
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


def bind_arguments(names: list[str], args) -> dict[str, cst.BaseExpression]:
    """Each argument of a call by the parameter it fills: keywords by name, positionals
    in order over `names` (extra positionals are dropped)."""
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
    klass = model.resolve_class(expr.func)
    if klass is not None and hashed_by_identity(model, klass):
        return f"a new `{klass.name}` object (hashed by identity)"
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


# Annotations of fields that hold a Python number: static under filter_jit.
_NUMBER_ANNOTATIONS = frozenset({"builtins.int", "builtins.float", "builtins.bool"})


def counted_fields(model, func, arrays_only: bool) -> dict[Optional[int], str]:
    """{position in what `func` returns (None: the whole value): field name} for a copy of
    a pytree that `func` returns with a static field counted up from its old value
    (`m = eqx.tree_at(lambda m: m.it, m, m.it + 1)`, `dataclasses.replace(m, it=m.it + 1)`):
    a loop that passes the result back in gives `func` a new static value on each call."""
    if not isinstance(func.node, cst.FunctionDef):
        return {}
    counted: dict[str, str] = {}
    stack = [func.node.body]
    while stack:
        node = stack.pop()
        if isinstance(node, _FUNCTIONS):
            continue
        stack.extend(node.children)
        if isinstance(node, cst.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name):
            name = _counted_field(model, node.value, {}, arrays_only)
            if name is not None:
                counted[node.targets[0].target.value] = name
    out: dict[Optional[int], str] = {}
    for ret in _own_returns(func.node):
        value = ret.value
        parts = [(k, el.value) for k, el in enumerate(value.elements)] \
            if isinstance(value, cst.Tuple) else [(None, value)]
        for k, part in parts:
            name = _counted_field(model, part, counted, arrays_only)
            if name is not None:
                out[k] = name
    return out


def _counted_field(model, expr, counted: dict[str, str], arrays_only: bool) -> Optional[str]:
    """The static field `expr` holds counted up: a name bound to such a copy, or the
    replacing call itself."""
    if isinstance(expr, cst.Name):
        return counted.get(expr.value)
    if isinstance(expr, cst.Call):
        for name, value in _replaced_fields(model, expr):
            if _counts_up(value, name) and _static_field(model, name, arrays_only):
                return name
    return None


def _replaced_fields(model, call: cst.Call) -> Iterator[tuple[str, cst.BaseExpression]]:
    how = jax_api.FIELD_REPLACING_CALLS.get(model.qualname(call.func))
    if how == "keywords":
        for arg in call.args:
            if arg.keyword is not None:
                yield arg.keyword.value, arg.value
    elif how == "where" and len(call.args) >= 3 and all(a.keyword is None for a in call.args[:3]):
        where = call.args[0].value
        if isinstance(where, cst.Lambda) and isinstance(where.body, cst.Attribute):
            yield where.body.attr.value, call.args[2].value


def _counts_up(value: cst.BaseExpression, name: str) -> bool:
    """`m.it + 1`, `m.it - 1`: the field's old value moved by a literal number."""
    if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract))):
        return False
    sides = (value.left, value.right)
    return any(isinstance(s, cst.Attribute) and s.attr.value == name for s in sides) \
        and any(isinstance(s, (cst.Integer, cst.Float)) for s in sides)


def _static_field(model, name: str, arrays_only: bool) -> bool:
    """Whether every pytree class of this file with a field `name` has it static: declared
    static, or under filter_jit annotated as a Python number."""
    found = [c.fields[name] for c in model.classes if c.pytree and name in c.fields]
    return bool(found) and all(
        f.static or arrays_only and f.annotation is not None
        and model.qualname(f.annotation) in _NUMBER_ANNOTATIONS for f in found)
