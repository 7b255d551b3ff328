"""Arrays whose shape the code writes down: `jnp.zeros(3)`, `jnp.arange(4)`, `jnp.array([1, 2])`.

A shape is known only from literals at the array's creation, seen through a name
bound once (or rebound only by `x = x.at[i].set(v)`, which keeps the shape). Each
dimension is an int; a last None stands for dimensions the call does not say
(`jnp.array([a, b])`: 2 rows of unknown shape). Anything else: None.
"""

from __future__ import annotations

import math
from typing import Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.model import FileModel

Shape = tuple  # of Optional[int]


def literal_int(expr: cst.BaseExpression) -> Optional[int]:
    """The value of an int literal (`5`, `-1`, `0x10`), or None."""
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        inner = literal_int(expr.expression)
        if inner is not None:
            return -inner if isinstance(expr.operator, cst.Minus) else inner
    return None


def argument(call: cst.Call, index: int, keyword: str) -> Optional[cst.BaseExpression]:
    """The argument at `index` or named `keyword`; None if absent or behind `*args` / `**kw`."""
    positional = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            if arg.keyword.value == keyword:
                return arg.value
        elif positional == index:
            return arg.value
        else:
            positional += 1
    return None


def has_keyword(call: cst.Call, keyword: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == keyword or a.star == "**" for a in call.args)


def known_shape(model: FileModel, expr: cst.BaseExpression, depth: int = 0,
                numpy: bool = False) -> Optional[Shape]:
    """The shape of the array `expr` is, where literals in its creation say it: through
    names (the binding that reaches the read), arithmetic (NumPy broadcasting), calls
    that keep their argument's shape (`jax.device_put`), and parameters, from the
    arguments every call site of this file passes them.
    `numpy`: NumPy arrays too (`np.random.randn(10, 4)`), for shape-only questions."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, cst.Name):
        return _shape_of_name(model, expr, numpy, depth)
    if isinstance(expr, cst.Attribute):
        return _shape_of_attribute(model, expr, numpy, depth)
    if isinstance(expr, cst.Call):
        return _created_shape(model, expr, numpy, depth)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ELEMENTWISE):
        return broadcast(_operand_shape(model, expr.left, numpy, depth),
                         _operand_shape(model, expr.right, numpy, depth))
    return None


_MAX_DEPTH = 6
_ELEMENTWISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)


def leading_size(model: FileModel, expr: cst.BaseExpression, depth: int = 0) -> Optional[int]:
    """The length of axis 0 of the array `expr` is, where the code states it: from its known
    shape, or from a call whose first axis an argument gives (`jax.random.split(key, 8)`
    holds 8 keys whatever the key's own shape), through names."""
    shape = known_shape(model, expr, numpy=True)
    if shape:
        return shape[0]
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, cst.Name):
        bindings = model.scope_of(expr).lookup(expr.value) or []
        values = model.assigned_values(expr) if bindings and bindings[0].kind != "param" else None
        if not values:
            return None
        reaching = _reaching_value(model, expr, values)
        sizes = {leading_size(model, v, depth + 1) for v in ([reaching] if reaching is not None else values)}
        return sizes.pop() if len(sizes) == 1 else None
    if isinstance(expr, cst.Call) and not any(a.star for a in expr.args):
        spec = jax_api.LEADING_AXIS_ARGUMENTS.get(model.qualname(expr.func) or "")
        if spec is None:
            return None
        index, keyword, default = spec
        given = argument(expr, index, keyword)
        n = default if given is None else _dimension(given, model)
        return n if n is not None and n >= 0 else None
    return None


def _operand_shape(model: FileModel, expr: cst.BaseExpression, numpy: bool, depth: int) -> Optional[Shape]:
    if literal_number(expr):
        return ()
    return known_shape(model, expr, depth + 1, numpy)


def broadcast(a: Optional[Shape], b: Optional[Shape]) -> Optional[Shape]:
    """NumPy's broadcast of two fully known shapes; None if unknown or incompatible."""
    if a is None or b is None or any(d is None for d in a + b):
        return None
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def literal_indices(model: FileModel, expr: cst.BaseExpression) -> Optional[list[int]]:
    """The ints an index writes down: `5`, or an index array of literals
    (`jnp.array([4])`, `np.array([13, 2])`); None otherwise."""
    n = literal_int(expr)
    if n is not None:
        return [n]
    if isinstance(expr, cst.Call) and model.qualname(expr.func) in jax_api.INDEX_ARRAY_CONSTRUCTORS \
            and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star \
            and isinstance(expr.args[0].value, (cst.List, cst.Tuple)):
        return _literal_ints(expr.args[0].value)
    return None


def indices_at_call_sites(model: FileModel, expr: cst.BaseExpression) -> list[tuple[list[int], cst.Call]]:
    """For a parameter `expr`: the literal index arrays (or ints) call sites of its
    function pass it (`model(jnp.array([[100, 101]]))` for `ids` of `__call__`), each
    with its call; sites passing anything else are skipped."""
    from jaxlint.engine.callees import argument_for, call_sites

    if not isinstance(expr, cst.Name) or model.comprehension_variable(expr):
        return []
    bindings = model.scope_of(expr).lookup(expr.value) or []
    if len(bindings) != 1 or bindings[0].kind != "param":
        return []
    func = model.function_of(expr)
    while func is not None and expr.value not in func.scope.bindings:
        func = func.enclosing
    if func is None or func.is_lambda or expr.value in (func.vararg, func.kwarg):
        return []
    out = []
    for call, shift in call_sites(model, func):
        arg = argument_for(call, func, expr.value, shift)
        found = literal_indices(model, arg) if arg is not None else None
        if found is not None:
            out.append((found, call))
    return out


def _literal_ints(display: cst.BaseExpression) -> Optional[list[int]]:
    """The ints of a (nested) list display of int literals, `[[100, 101, 102]]`."""
    values = []
    for el in display.elements:
        if not isinstance(el, cst.Element):
            return None
        if isinstance(el.value, (cst.List, cst.Tuple)):
            inner = _literal_ints(el.value)
            if inner is None:
                return None
            values.extend(inner)
            continue
        v = literal_int(el.value)
        if v is None:
            return None
        values.append(v)
    return values or None


def _shape_of_name(model: FileModel, name: cst.Name, numpy: bool = False, depth: int = 0) -> Optional[Shape]:
    bindings = model.scope_of(name).lookup(name.value) or []
    if len(bindings) == 1 and bindings[0].kind == "param" and not model.comprehension_variable(name):
        return _parameter_shape(model, name, numpy, depth)
    values = model.assigned_values(name)
    if not values:
        return None
    reaching = _reaching_value(model, name, values)
    if reaching is not None:
        return known_shape(model, reaching, depth + 1, numpy=numpy)
    shape = None
    for value in values:
        if _at_update_of(value, name.value):
            continue  # `x = x.at[i].set(v)`: the same shape
        found = known_shape(model, value, depth + 1, numpy=numpy)
        if found is None or shape is not None and found != shape:
            return None
        shape = found
    return shape


def _shape_of_attribute(model: FileModel, expr: cst.Attribute, numpy: bool, depth: int) -> Optional[Shape]:
    """`self.table`: the shape every `self.table = ...` of its class gives it, when they agree."""
    values = model.attribute_assignments(expr)
    if not values:
        return None
    shapes = {known_shape(model, v, depth + 1, numpy=numpy) for v in values}
    return shapes.pop() if len(shapes) == 1 else None


def _statement(model: FileModel, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    for anc in [node, *model.ancestors(node)]:
        if isinstance(anc, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return anc
    return None


def _reaching_value(model: FileModel, name: cst.Name, values: list) -> Optional[cst.BaseExpression]:
    """In straight-line code (the read and every assignment statements of one block), the
    value of the last assignment before the read's statement, passing over `.at[]` updates."""
    if len(values) < 2:
        return None
    stmt = _statement(model, name)
    block = model.parent(stmt) if stmt is not None else None
    body = getattr(block, "body", None)
    if not isinstance(body, (list, tuple)) or stmt not in body:
        return None
    at = body.index(stmt)
    before = []
    for value in values:
        assigned = _statement(model, value)
        if assigned is None or model.parent(assigned) is not block:
            return None
        if body.index(assigned) < at:
            before.append((body.index(assigned), value))
    for _, value in sorted(before, key=lambda p: p[0], reverse=True):
        if not _at_update_of(value, name.value):  # `x = x.at[i].set(v)` keeps the shape
            return value
    return None


def _parameter_shape(model: FileModel, name: cst.Name, numpy: bool, depth: int) -> Optional[Shape]:
    """A parameter's shape: the same known shape at every call of its function in this
    file (called by name, or through a transform that keeps shapes, `jax.grad(f)(x)`),
    where the file uses the function in no other way."""
    from jaxlint.engine.callees import argument_for

    func = model.function_of(name)
    while func is not None and name.value not in func.scope.bindings:
        func = func.enclosing
    if func is None or func.is_lambda or func.is_method or name.value not in func.all_params \
            or name.value in (func.vararg, func.kwarg):
        return None
    sites = _call_sites(model, func)
    if not sites:
        return None
    shape = None
    for site in sites:
        arg = argument_for(site, func, name.value, 0)
        found = known_shape(model, arg, depth + 1, numpy=numpy) if arg is not None else None
        if found is None or shape is not None and found != shape:
            return None
        shape = found
    return shape


def _call_sites(model: FileModel, func) -> Optional[list]:
    """Every call of `func` in this file, or None if the file also uses it otherwise
    (passes it on, maps it, stores it)."""
    sites = []
    for ref in model.nodes(cst.Name):
        if ref.value != func.name or model.resolve_function(ref) is not func:
            continue
        parent = model.parent(ref)
        if isinstance(parent, cst.FunctionDef) and parent.name is ref:
            continue
        if isinstance(parent, cst.Call) and parent.func is ref:
            sites.append(parent)
            continue
        wrapper = model.parent(parent) if isinstance(parent, cst.Arg) else None
        outer = model.parent(wrapper) if isinstance(wrapper, cst.Call) else None
        if isinstance(outer, cst.Call) and outer.func is wrapper and wrapper.args[0] is parent \
                and model.qualname(wrapper.func) in jax_api.SHAPE_PRESERVING_TRANSFORMS:
            sites.append(outer)
            continue
        return None
    return sites


def _at_update_of(expr: cst.BaseExpression, name: str) -> bool:
    """`name.at[...].set(...)` (or any other `.at[]` update method)."""
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Attribute):
        return False
    sub = expr.func.value
    return expr.func.attr.value in jax_api.AT_METHODS and expr.func.attr.value != "get" \
        and isinstance(sub, cst.Subscript) and isinstance(sub.value, cst.Attribute) \
        and sub.value.attr.value == "at" and isinstance(sub.value.value, cst.Name) \
        and sub.value.value.value == name


def _created_shape(model: FileModel, call: cst.Call, numpy: bool = False, depth: int = 0) -> Optional[Shape]:
    q = model.qualname(call.func)
    if q is None or any(a.star for a in call.args):
        return None
    if q in jax_api.SHAPE_KEEPING_CALLS and call.args and call.args[0].keyword is None \
            and not isinstance(call.args[0].value, (cst.List, cst.Tuple)) \
            and not any(a.keyword is not None and a.keyword.value in ("ndmin", "shape") for a in call.args):
        # A NumPy array inside keeps its shape too: the result is a JAX array.
        return known_shape(model, call.args[0].value, depth + 1, numpy=True)
    if numpy and q in jax_api.NUMPY_DIMS_CONSTRUCTORS:
        dims = [literal_int(a.value) for a in call.args]
        return tuple(dims) if all(a.keyword is None for a in call.args) \
            and all(d is not None and d >= 0 for d in dims) else None
    if numpy and q.startswith("numpy.") and "jax." + q in jax_api.NUMPY_SAME_SHAPE:
        q = "jax." + q  # NumPy's constructor makes the shape JAX's does
    if q in jax_api.LITERAL_SHAPE_CONSTRUCTORS:
        index, keyword = jax_api.LITERAL_SHAPE_CONSTRUCTORS[q]
        return _literal_shape(argument(call, index, keyword), model)
    if q == "jax.numpy.arange":
        return _arange_shape(call)
    if q == "jax.numpy.linspace":
        if argument(call, 0, "start") is None or argument(call, 1, "stop") is None:
            return None
        if has_keyword(call, "axis"):
            return None  # array endpoints stack along `axis`
        for end in (argument(call, 0, "start"), argument(call, 1, "stop")):
            if not isinstance(end, (cst.Integer, cst.Float, cst.UnaryOperation)):
                return None  # array endpoints add dimensions
        num = argument(call, 2, "num")
        n = jax_api.LINSPACE_DEFAULT_NUM if num is None else literal_int(num)
        return (n,) if n is not None and n >= 0 else None
    if q in ("jax.numpy.eye", "jax.numpy.identity"):
        n = literal_int(argument(call, 0, "N" if q.endswith("eye") else "n"))
        m = argument(call, 1, "M") if q.endswith("eye") else None
        m_value = n if m is None or isinstance(m, cst.Name) and m.value == "None" else literal_int(m)
        return (n, m_value) if n is not None and m_value is not None else None
    if q in jax_api.LIST_ARRAY_CONSTRUCTORS:
        obj = argument(call, 0, "object" if q.endswith(".array") else "a")
        if not isinstance(obj, (cst.List, cst.Tuple)) or has_keyword(call, "ndmin"):
            return None
        return _display_shape(obj)
    return None


def _literal_shape(arg: Optional[cst.BaseExpression], model: Optional[FileModel] = None) -> Optional[Shape]:
    """The shape a shape argument writes: literal dimensions, or (with `model`) names
    whose one value the code states (`(vocab_size, dim)` in `__init__`, where every
    construction leaves `vocab_size=32`, passed or by default)."""
    if arg is None:
        return None
    n = _dimension(arg, model)
    if n is not None:
        return (n,) if n >= 0 else None
    if isinstance(arg, (cst.Tuple, cst.List)):
        dims = []
        for el in arg.elements:
            if not isinstance(el, cst.Element):
                return None  # `*dims`
            d = _dimension(el.value, model)
            if d is None or d < 0:
                return None
            dims.append(d)
        return tuple(dims)
    return None


def _dimension(expr: cst.BaseExpression, model: Optional[FileModel]) -> Optional[int]:
    n = literal_int(expr)
    if n is not None or model is None or isinstance(expr, (cst.Tuple, cst.List)):
        return n
    from jaxlint.engine.constants import int_constant, int_values_at_call_sites

    n = int_constant(model, expr)
    if n is not None:
        return n
    values = {v for v, _ in int_values_at_call_sites(model, expr)}
    return values.pop() if len(values) == 1 else None


def _arange_shape(call: cst.Call) -> Optional[Shape]:
    positional = [a.value for a in call.args if a.keyword is None]
    if any(a.keyword is not None and a.keyword.value in ("start", "stop", "step") for a in call.args):
        return None
    values = [literal_real(v) for v in positional[:3]]
    if not values or any(v is None for v in values):
        return None
    if len(values) == 1:
        start, stop, step = 0, values[0], 1
    else:
        start, stop = values[0], values[1]
        step = values[2] if len(values) == 3 else 1
    if step == 0:
        return None
    return (max(0, math.ceil((stop - start) / step)),)  # NumPy's length of an arange


def literal_real(expr: cst.BaseExpression) -> Optional[float]:
    """The value of an int or float literal (`5`, `-2.5`), or None."""
    n = literal_int(expr)
    if n is not None:
        return n
    sign = 1
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        sign = -1 if isinstance(expr.operator, cst.Minus) else 1
        expr = expr.expression
    if isinstance(expr, cst.Float):
        return sign * float(expr.value)
    return None


def _display_shape(display: cst.BaseExpression) -> Optional[Shape]:
    """`[[1, 2], [3, 4]]` -> (2, 2); `[a, b]` -> (2, None): rows of unknown shape."""
    if any(not isinstance(el, cst.Element) for el in display.elements):
        return None  # `[*xs]`
    values = [el.value for el in display.elements]
    if not values:
        return (0,)
    if all(literal_number(v) for v in values):
        return (len(values),)
    rows = [_display_shape(v) if isinstance(v, (cst.List, cst.Tuple)) else None for v in values]
    if all(r is not None for r in rows) and len(set(rows)) == 1:
        return (len(values),) + rows[0]
    return (len(values), None)  # rows of unknown shape: only axis 0 is known


def literal_number(expr: cst.BaseExpression) -> bool:
    """A number or bool written as a literal (`1`, `-2.5`, `True`)."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary)) \
        or isinstance(expr, cst.Name) and expr.value in ("True", "False")
