"""Values the code states outright, run as Python would, and the lengths of the arrays
they build: `segments = [(20.0, 40.0, 16 + 8 * k) for k in range(6)]`, then
`[(jnp.linspace(*seg), ...) for seg in segments]` holds arrays of 16, 24, ... 56 points.

Only literals, arithmetic, tuples and lists, `range`, comprehensions over them, names
bound once at module level, and calls of functions of this file whose one `return`
builds the array are followed; anything else is unknown (None), and the rules that
read these stay silent on it.
"""

from __future__ import annotations

import operator
from typing import Optional

import libcst as cst

from jaxlint.engine.scopes import BindingKind

_UNKNOWN = object()
_DEPTH = 8
_MAX_ITEMS = 4096
_BINARY = {cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
           cst.FloorDivide: operator.floordiv, cst.Divide: operator.truediv}
#: Array constructors and where their length is given: `jnp.linspace(start, stop, num=50)`
#: has `num` points, `jnp.zeros(shape)` / `ones` / `empty` / `full` the shape's first entry.
_LENGTH_ARGS = {
    "linspace": (2, "num", 50), "logspace": (2, "num", 50), "geomspace": (2, "num", 50),
    "zeros": (0, "shape", None), "ones": (0, "shape", None), "empty": (0, "shape", None),
    "full": (0, "shape", None),
}


def stated_value(model, expr: cst.BaseExpression, env: Optional[dict] = None, depth: int = 0):
    """The Python value `expr` evaluates to, from what the code states; None if unknown."""
    value = _value(model, expr, env or {}, depth)
    return None if value is _UNKNOWN else value


def _value(model, expr, env, depth):
    if depth > _DEPTH:
        return _UNKNOWN
    if isinstance(expr, cst.Integer):
        return int(expr.value.replace("_", ""), 0)
    if isinstance(expr, cst.Float):
        return float(expr.value.replace("_", ""))
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _value(model, expr.expression, env, depth + 1)
        return -inner if isinstance(inner, (int, float)) else _UNKNOWN
    if isinstance(expr, cst.BinaryOperation):
        op = _BINARY.get(type(expr.operator))
        left = _value(model, expr.left, env, depth + 1)
        right = _value(model, expr.right, env, depth + 1)
        if op is None or not isinstance(left, (int, float)) or not isinstance(right, (int, float)) \
                or (op in (operator.floordiv, operator.truediv) and right == 0):
            return _UNKNOWN
        return op(left, right)
    if isinstance(expr, (cst.Tuple, cst.List)):
        items = []
        for el in expr.elements:
            if isinstance(el, cst.StarredElement):
                return _UNKNOWN
            item = _value(model, el.value, env, depth + 1)
            if item is _UNKNOWN:
                return _UNKNOWN
            items.append(item)
        return tuple(items)
    if isinstance(expr, cst.Name):
        if expr.value in env:
            return env[expr.value]
        bound = _bound_once(model, expr)
        return _value(model, bound, {}, depth + 1) if bound is not None else _UNKNOWN
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 \
            and isinstance(expr.slice[0].slice, cst.Index):
        seq = _value(model, expr.value, env, depth + 1)
        index = _value(model, expr.slice[0].slice.value, env, depth + 1)
        if isinstance(seq, tuple) and isinstance(index, int) and -len(seq) <= index < len(seq):
            return seq[index]
        return _UNKNOWN
    if isinstance(expr, cst.Call) and model.qualname(expr.func) == "builtins.range":
        bounds = [_value(model, a.value, env, depth + 1) for a in expr.args]
        if not 1 <= len(bounds) <= 3 or any(a.keyword is not None or a.star for a in expr.args) \
                or not all(isinstance(b, int) for b in bounds) or (len(bounds) == 3 and bounds[2] == 0):
            return _UNKNOWN
        values = range(*bounds)
        return tuple(values) if len(values) <= _MAX_ITEMS else _UNKNOWN
    if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
        return _comprehension(model, expr, env, depth, lambda e, sub: _value(model, e, sub, depth + 1))
    return _UNKNOWN


def _comprehension(model, comp, env, depth, element):
    """Each element of a one-clause comprehension, as `element(expr, env)` gives it."""
    clause = comp.for_in
    if clause.inner_for_in is not None or clause.ifs or not isinstance(clause.target, cst.Name):
        return _UNKNOWN
    source = _value(model, clause.iter, env, depth + 1)
    if not isinstance(source, tuple):
        return _UNKNOWN
    out = []
    for item in source:
        value = element(comp.elt, {**env, clause.target.value: item})
        if value is _UNKNOWN:
            return _UNKNOWN
        out.append(value)
    return tuple(out)


def _bound_once(model, name: cst.Name) -> Optional[cst.BaseExpression]:
    """The value of a module-level name assigned exactly once (`segments = [...]`)."""
    bindings = model.scope_of(name).lookup(name.value)
    if not bindings or len(bindings) != 1 or model.module_scope.bindings.get(name.value) is not bindings:
        return None
    node = bindings[0].node
    if bindings[0].kind != BindingKind.ASSIGN or not isinstance(node, cst.Assign) \
            or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
        return None
    return node.value


def element_lengths(model, iterable: cst.BaseExpression, position: Optional[int]) -> Optional[list[int]]:
    """The leading length of the array each pass of `for x in iterable` gets (with
    `position`: of element `position` of each item, as `for grid, data in pairs`
    unpacks it), where the iterable is a comprehension of this file, or a name bound
    once to one, and each array is built by a constructor whose size the code states."""
    if isinstance(iterable, cst.Name):
        passed = _passed(model, iterable)
        if passed is not None:
            # A parameter: what every call of its function passes, if they agree.
            found = [element_lengths(model, arg, position) for arg in passed]
            return found[0] if found and all(f is not None and f == found[0] for f in found) else None
        bound = _bound_once(model, iterable)
        if bound is None:
            return None
        iterable = bound
    if not isinstance(iterable, (cst.ListComp, cst.GeneratorExp)):
        return None

    def length(elt, env):
        if position is not None:
            if not isinstance(elt, cst.Tuple) or position >= len(elt.elements) \
                    or isinstance(elt.elements[position], cst.StarredElement):
                return _UNKNOWN
            elt = elt.elements[position].value
        return _length(model, elt, env, 0)

    found = _comprehension(model, iterable, {}, 0, length)
    return list(found) if isinstance(found, tuple) else None


def _passed(model, name: cst.Name) -> Optional[list[cst.BaseExpression]]:
    """What the calls of this file pass to the parameter `name` (None: not a parameter,
    no call, or a call that does not show it)."""
    from jaxlint.engine.callees import argument_for, call_sites

    bindings = model.scope_of(name).lookup(name.value)
    if not bindings or len(bindings) != 1 or bindings[0].kind != BindingKind.PARAM:
        return None
    func = model.function_of(name)
    if func is None or func.is_lambda or name.value not in func.all_params:
        return None
    out = []
    for call, shift in call_sites(model, func):
        arg = argument_for(call, func, name.value, shift)
        if arg is None:
            return None
        out.append(arg)
    return out or None


def _length(model, expr, env, depth):
    """The leading length of the array `expr` builds."""
    from jaxlint.engine.callees import called_function

    if depth > 3 or not isinstance(expr, cst.Call):
        return _UNKNOWN
    q = model.qualname(expr.func) or ""
    module, _, name = q.rpartition(".")
    if module in ("jax.numpy", "numpy") and name in _LENGTH_ARGS:
        index, keyword, default = _LENGTH_ARGS[name]
        args = _bind_star(model, expr, env, depth)
        if args is None:
            return _UNKNOWN
        positional, keywords = args
        size = keywords.get(keyword, positional[index] if index < len(positional) else default)
        if isinstance(size, tuple):
            size = size[0] if size else _UNKNOWN
        return size if isinstance(size, int) else _UNKNOWN
    callee = called_function(model, expr)
    if callee is None or callee.is_lambda or callee.is_method or callee.vararg or callee.kwarg:
        return _UNKNOWN
    returned = model.returned_expressions(callee)
    args = _bind_star(model, expr, env, depth)
    if not returned or len(returned) != 1 or args is None:
        return _UNKNOWN
    positional, keywords = args
    if len(positional) > len(callee.positional):
        return _UNKNOWN
    inner = dict(zip(callee.positional, positional))
    inner.update(keywords)
    for param, default in callee.defaults.items():
        if param not in inner:
            value = _value(model, default, {}, depth + 1)
            if value is not _UNKNOWN:
                inner[param] = value
    return _length(model, returned[0], inner, depth + 1)


def _bind_star(model, call: cst.Call, env, depth):
    """The call's positional and keyword argument values, `*seq` unpacked; None if any is
    unknown."""
    positional, keywords = [], {}
    for a in call.args:
        value = _value(model, a.value, env, depth + 1)
        if value is _UNKNOWN:
            value = None  # known only by position: fine unless it is the size
        if a.star == "*":
            if not isinstance(value, tuple):
                return None
            positional.extend(value)
        elif a.star:
            return None
        elif a.keyword is not None:
            keywords[a.keyword.value] = value
        else:
            positional.append(value)
    return positional, keywords


# ------------------------------------------------------------ array shapes
#: Constructors whose shape argument is at (position, keyword): `jnp.zeros((3, 11))`,
#: `random.normal(key, (1000,))`, `np.random.normal(size=[3, 11])`.
_SHAPE_ARGS = {
    **{f"jax.numpy.{n}": (0, "shape") for n in ("zeros", "ones", "empty", "full")},
    **{f"numpy.{n}": (0, "shape") for n in ("zeros", "ones", "empty", "full")},
    **{f"jax.random.{n}": (1, "shape") for n in ("normal", "uniform", "bernoulli", "gumbel", "laplace",
                                                   "logistic", "cauchy", "exponential", "truncated_normal")},
    **{f"numpy.random.{n}": (2, "size") for n in ("normal", "uniform", "laplace", "logistic", "gumbel")},
}
_LIKE = frozenset(f"{m}.{n}" for m in ("jax.numpy", "numpy")
                  for n in ("zeros_like", "ones_like", "empty_like", "full_like", "asarray", "array", "sort"))
_DIMS_ARGS = frozenset({"numpy.random.rand", "numpy.random.randn"})


def broadcast(a: tuple, b: tuple) -> Optional[tuple]:
    """NumPy broadcasting of two shapes whose entries are upper bounds of the dims: the
    result's dim is at most the larger bound; None where the dims cannot meet."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        out.append(max(x, y))
    return tuple(reversed(out))


def array_shape(model, expr: cst.BaseExpression, env: Optional[dict] = None, depth: int = 0) -> Optional[tuple]:
    """Upper bounds of the dims of the array `expr` evaluates to, from sizes the code
    states: constructors with stated sizes (`jnp.linspace(-1, 1, 500)`,
    `random.normal(key, (1000,))`, `jnp.ones((3, 11))`), the binding in effect of a name
    (notebook cells included), broadcasting arithmetic and slicing. `env` maps the
    names of a function being followed to the shapes of what its call passes. A Python
    number is `()`. None where any size is unknown."""
    env = env or {}
    if depth > _DEPTH:
        return None
    if isinstance(expr, (cst.Integer, cst.Float)):
        return ()
    if isinstance(expr, cst.Name):
        if expr.value in env:
            return env[expr.value]
        binding = model.binding_in_effect(expr)
        node = getattr(binding, "node", None)
        if binding is None or not isinstance(node, cst.Assign):
            return None
        return array_shape(model, node.value, {}, depth + 1)
    if isinstance(expr, cst.UnaryOperation):
        return array_shape(model, expr.expression, env, depth + 1)
    if isinstance(expr, cst.BinaryOperation) and not isinstance(expr.operator, cst.MatrixMultiply):
        left = array_shape(model, expr.left, env, depth + 1)
        right = array_shape(model, expr.right, env, depth + 1)
        return broadcast(left, right) if left is not None and right is not None else None
    if isinstance(expr, cst.Subscript):
        return _subscript_shape(model, expr, env, depth)
    if isinstance(expr, cst.Call):
        return _call_shape(model, expr, env, depth)
    return None


def _subscript_shape(model, expr: cst.Subscript, env, depth):
    """`x[i - 1:i + 2]`, `x[0]`, `x[:, None]`: basic indexing never grows a dim, so an
    unknown slice bound keeps the base's bound."""
    base = array_shape(model, expr.value, env, depth + 1)
    if base is None:
        return None
    dims, out = list(base), []
    for el in expr.slice:
        part = el.slice
        if isinstance(part, cst.Index) and isinstance(part.value, cst.Name) and part.value.value == "None":
            out.append(1)
            continue
        if not dims:
            return None
        dim = dims.pop(0)
        if isinstance(part, cst.Slice):
            parts = (part.lower, part.upper, part.step)
            bounds = [None if b is None else stated_value(model, b, _ints(env)) for b in parts]
            if all(b is None or isinstance(b, int) for b in bounds) and all(
                    b is not None for b, n in zip(bounds, (part.lower, part.upper, part.step)) if n is not None):
                dim = len(range(dim)[slice(*bounds)])
            out.append(dim)
        elif isinstance(part, cst.Index) and array_shape(model, part.value, env, depth + 1) != ():
            return None  # an array index: advanced indexing sizes the result by the index
    return tuple(out + dims)


def _ints(env: dict) -> dict:
    """The Python ints among `env`'s entries (a loop counter is an int, not a shape)."""
    return {k: v for k, v in env.items() if isinstance(v, int)}


def _call_shape(model, call: cst.Call, env, depth):
    q = model.qualname(call.func) or ""
    args = [a for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if q in ("jax.numpy.linspace", "numpy.linspace"):
        num = keywords.get("num", args[2].value if len(args) > 2 else None)
        n = 50 if num is None else stated_value(model, num, _ints(env))
        return (n,) if isinstance(n, int) else None
    if q in ("jax.numpy.arange", "numpy.arange"):
        bounds = [stated_value(model, a.value, _ints(env)) for a in args]
        if set(keywords) - {"dtype"} or not 1 <= len(bounds) <= 3 \
                or not all(isinstance(b, (int, float)) for b in bounds):
            return None
        start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else \
            (*bounds[:2], bounds[2] if len(bounds) > 2 else 1)
        return (max(0, -(-(stop - start) // step)),) if step else None
    if q in _SHAPE_ARGS:
        position, keyword = _SHAPE_ARGS[q]
        shape = keywords.get(keyword, args[position].value if len(args) > position else None)
        value = stated_value(model, shape, _ints(env)) if shape is not None else None
        if isinstance(value, int):
            value = (value,)
        return value if isinstance(value, tuple) and all(isinstance(d, int) for d in value) else None
    if q in _DIMS_ARGS:
        dims = tuple(stated_value(model, a.value, _ints(env)) for a in args)
        return dims if not keywords and dims and all(isinstance(d, int) for d in dims) else None
    if q in ("jax.numpy.stack", "numpy.stack") and len(args) == 1 and not keywords \
            and isinstance(args[0].value, (cst.List, cst.Tuple)):
        q = q[:-len("stack")] + "array"  # `jnp.stack([x, x])`: along a new first axis, as `jnp.array`
    if q in _LIKE and args:
        inner = args[0].value
        if isinstance(inner, (cst.List, cst.Tuple)) and q.endswith(("array", "asarray")):
            items = [array_shape(model, el.value, env, depth + 1) if not isinstance(el, cst.StarredElement) else None
                     for el in inner.elements]
            if not items or any(i is None or i != items[0] for i in items):
                return None
            return (len(items),) + items[0]
        return array_shape(model, inner, env, depth + 1)
    return None
