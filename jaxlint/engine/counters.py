"""Integer JAX arrays the program counts up: a step counter held in a field of a state.

`decay ** count` outside jit, with `count` a concrete integer JAX array, runs
`lax.integer_pow` with the count's value as its static exponent (jax 0.10.2: one
`Compiling jit(integer_pow)` per distinct count). A counter that a loop advances is a new
exponent on every pass. This module reads, from the code, which expressions are integer
JAX arrays and which of them are such a counter.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.jax_api import INT_DTYPE_RANGES, X64_DTYPE_ARGUMENTS, X64_DTYPE_MODULES

#: Integer dtypes by name (the 64-bit ones too: with x64 off they are int32 / uint32).
_INT_DTYPES = frozenset(INT_DTYPE_RANGES) | {"int64", "uint64"}
_DEPTH = 8


def int_dtype(model, expr: Optional[cst.BaseExpression]) -> bool:
    """`jnp.int32`, `np.uint8`, `"int32"`: an integer dtype."""
    if isinstance(expr, cst.SimpleString):
        text = expr.evaluated_value
        return isinstance(text, str) and text in _INT_DTYPES
    q = model.qualname(expr) if expr is not None else None
    if q is None or "." not in q:
        return False
    module, name = q.rsplit(".", 1)
    return module in X64_DTYPE_MODULES and name in _INT_DTYPES


def integer_array(model, expr: cst.BaseExpression, assumed: frozenset = frozenset(), depth: int = 0) -> bool:
    """Whether `expr` is a JAX array of an integer dtype wherever it runs: an array
    constructor given an integer dtype (`jnp.zeros([], jnp.int32)`), `jnp.int32(0)`, such
    an array plus or minus an int literal, a name bound once to one, a parameter every
    call of this file passes one, or a field `s.count` that every construction of every
    class of this file with that field fills with one (`assumed`: fields taken as integer
    while their own constructions are read, for a counter stored back into its field)."""
    if depth > _DEPTH:
        return False
    if isinstance(expr, cst.Call):
        q = model.qualname(expr.func)
        if q is None:
            return False
        if q.startswith("jax.numpy.") and q.rsplit(".", 1)[1] in _INT_DTYPES:
            return True  # jnp.int32(0): a JAX array, unlike np.int32(0)
        if q in X64_DTYPE_ARGUMENTS and q.startswith("jax."):
            index, keyword = X64_DTYPE_ARGUMENTS[q]
            return int_dtype(model, _argument(expr, index, keyword))
        return False
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
        sides = (expr.left, expr.right)
        literal = [s for s in sides if isinstance(s, cst.Integer)]
        rest = [s for s in sides if not isinstance(s, cst.Integer)]
        return len(literal) == 1 and len(rest) == 1 and integer_array(model, rest[0], assumed, depth + 1)
    if isinstance(expr, cst.Name):
        sources = _sources(model, expr)
        return bool(sources) and all(integer_array(model, v, assumed, depth + 1) for v in sources)
    if isinstance(expr, cst.Attribute):
        field = expr.attr.value
        if field in assumed:
            return True
        values = field_constructions(model, field)
        return bool(values) and all(integer_array(model, v, assumed | {field}, depth + 1) for v in values)
    return False


def counter_step(model, expr: cst.BaseExpression, depth: int = 0) -> Optional[cst.BinaryOperation]:
    """`s.count + 1` that `expr` is, through names bound once and parameters every call
    of this file fills with it: the step of a counter held in field `count`."""
    if depth > _DEPTH:
        return None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)) \
            and any(isinstance(s, cst.Attribute) for s in (expr.left, expr.right)) \
            and any(isinstance(s, cst.Integer) and int(s.value, 0) != 0 for s in (expr.left, expr.right)):
        return expr
    if isinstance(expr, cst.Name):
        sources = _sources(model, expr)
        found = [counter_step(model, v, depth + 1) for v in sources or ()]
        if found and all(f is not None and f is found[0] for f in found):
            return found[0]
    return None


def counter_field(step: cst.BinaryOperation) -> str:
    side = step.left if isinstance(step.left, cst.Attribute) else step.right
    return side.attr.value


def field_constructions(model, field: str) -> Optional[list[cst.BaseExpression]]:
    """What every construction of a class of this file with the field `field` passes it
    (by keyword or position, and `s._replace(field=...)`); None when one leaves it out, passes
    it behind a star, or a class of this file also sets it as a plain attribute."""
    classes = [c for c in model.classes if c.fields and field in c.fields]
    if not classes:
        return None
    for node in model.nodes(cst.Assign):
        for t in node.targets:
            if isinstance(t.target, cst.Attribute) and t.target.attr.value == field:
                return None  # `self.count = ...`: a plain attribute somewhere
    out = []
    for klass in classes:
        names = list(klass.fields)
        for call in model.calls_named(klass.name):
            if model.resolve_class(call.func) is not klass:
                continue
            if any(a.star for a in call.args):
                return None
            value = _argument(call, names.index(field), field)
            if value is None:
                return None
            out.append(value)
    for call in model.nodes(cst.Call):
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "_replace":
            for a in call.args:
                if a.star:
                    return None
                if a.keyword is not None and a.keyword.value == field:
                    out.append(a.value)
    return out or None


def _sources(model, name: cst.Name) -> Optional[list[cst.BaseExpression]]:
    """The one value a name is bound to, or what every call passes a parameter."""
    from jaxlint.engine.callees import every_passed

    values = model.assigned_values(name)
    if values is not None:
        return values if len(values) == 1 else None
    return every_passed(model, name)


def _argument(call: cst.Call, index: int, keyword: str) -> Optional[cst.BaseExpression]:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    return positional[index] if index < len(positional) else None
