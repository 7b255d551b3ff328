"""How much a block of traced code adds to the program each time it runs.

A Python loop in a traced function is unrolled: the program holds one copy of the body
per iteration. The estimate counts one operation per JAX call and per arithmetic,
comparison or indexing on a traced value, a `jax.random` draw by what its nested
program holds, and a call of a function of this file by its own body (a few levels
deep). It is a lower bound on the jaxpr's length: Python arithmetic on static values
adds nothing.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.callees import called_function
from jaxlint.engine.model import children
from jaxlint.jax_api import RANDOM_DRAW_OPERATIONS, array_module_function

_DEPTH = 3
_ARITHMETIC = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.Subscript)


def traced_operations(model, body: cst.CSTNode, depth: int = 0) -> int:
    """The operations one run of `body` traces into the program."""
    total = 0
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Call):
            q = model.qualname(node.func) or ""
            callee = None if q.startswith("jax.") else called_function(model, node)
            if q.startswith("jax.random."):
                total += RANDOM_DRAW_OPERATIONS
            elif callee is not None:
                if not callee.is_lambda and depth < _DEPTH:
                    total += traced_operations(model, callee.node.body, depth + 1)
            elif array_module_function(q) or model.value(node).traced:
                total += 1
        elif isinstance(node, _ARITHMETIC) and model.value(node).traced:
            total += 1
        stack.extend(children(node))
    return total


# ------------------------------------------------------------ eager dispatches
class EagerWork:
    """What a call run eagerly dispatches, op by op: how many ops at least, and the most
    elements any one of them touches; and each call of a jitted function of this file,
    which dispatches all the ops of its body as one program."""

    def __init__(self):
        self.ops = 0
        self.largest = 0
        self.batched = False  # some op runs under an eager `vmap`
        self.repeats = 1  # the most times one op site runs
        self.total = 0  # the elements of all ops together, each run counted
        self.programs: list[tuple[int, int]] = []  # (elements of one call's ops, calls) per jitted call site

    def add(self, elements: int, times: int = 1, batch: int = 1):
        self.ops += times
        self.largest = max(self.largest, elements * batch)
        self.batched |= batch > 1
        self.repeats = max(self.repeats, times)
        self.total += elements * batch * times

    def add_program(self, program: "EagerWork", times: int):
        """`times` calls of a jitted function whose body dispatches `program`'s ops."""
        self.ops += times
        self.repeats = max(self.repeats, times)
        self.programs.append((program.total, times))


def eager_statements_work(model, statements) -> "EagerWork | None":
    """The `EagerWork` of module- or function-level statements run in order (a timed
    region): assignments and bare calls of eager work, `for` loops with a stated trip
    count. None where any statement is not followed."""
    work = EagerWork()
    found = _statements(model, list(statements), {}, 1, 0, work, 1, outer=True)
    return work if found is _NO_RETURN else None


def eager_work(model, call: cst.Call, env: dict, batch: int = 1, depth: int = 0):
    """The `EagerWork` of `call` run outside any transform, where every operand's size is
    stated (engine.sizes.array_shape) and every op's cost is known from the tables
    (LINEAR_COST_FUNCTIONS, PRODUCT_COST_FUNCTIONS, arithmetic and basic indexing): a
    function of this file is followed through its body with its parameters bound to
    the shapes its call passes, `jax.vmap(f, in_axes=...)(...)` with each op batched.
    None where anything is unknown (a jitted function, a library call, an unsized array)."""
    work = EagerWork()
    return work if _call_work(model, call, env, batch, depth, work, 1) is not None else None


def _call_work(model, call, env, batch, depth, work, times):
    """The shape of `call`'s result, adding its ops to `work`; None if unknown."""
    from jaxlint.engine.sizes import array_shape
    from jaxlint.jax_api import (COST_BOUNDED_METHODS, LINEAR_COST_FUNCTIONS, MATRIX_COST_FUNCTIONS,
                                 PRODUCT_COST_FUNCTIONS)

    q = model.qualname(call.func) or ""
    if q in COST_BOUNDED_METHODS and _method(call, COST_BOUNDED_METHODS[q][0]) not in COST_BOUNDED_METHODS[q][1]:
        return None  # `searchsorted(..., method="sort")`: a sort, whose cost the tables do not bound
    if q.endswith((".stack", ".array", ".asarray")) and q in LINEAR_COST_FUNCTIONS:
        items = _items_argument(model, call, env)
        if items is not None:  # `jnp.stack(output, axis=1)` of a list built by `append`
            out = items[0].stacked(items[1]) if items[1] == 0 or q.endswith(".stack") else None
            if out is None:
                return None
            work.add(_elements(out), times, batch)
            return out
    if q in LINEAR_COST_FUNCTIONS or q in PRODUCT_COST_FUNCTIONS:
        shapes = []
        for a in call.args:
            if a.star:
                return None
            if isinstance(a.value, (cst.ListComp, cst.List, cst.Tuple)) and a.keyword is None:
                shape = _sequence_work(model, a.value, env, batch, depth, work, times)
            elif a.keyword is not None and a.keyword.value in ("dtype", "axis", "num", "endpoint", "side", "method"):
                continue
            else:
                shape = _expr_work(model, a.value, env, batch, depth, work, times)
            if shape is None:
                return None
            shapes.append(shape)
        out = array_shape(model, call, env) if not any(isinstance(a.value, cst.ListComp) for a in call.args) else None
        if out is None and q in PRODUCT_COST_FUNCTIONS and len(shapes) == 2:
            out = _contracted(q.rsplit(".", 1)[1], *shapes)
        if out is None and q.endswith((".array", ".asarray", ".stack")) and len(shapes) == 1:
            out = shapes[0]
        if out is None and q in LINEAR_COST_FUNCTIONS and q.rsplit(".", 1)[1] in _REDUCTIONS \
                and len(shapes) == 1 and not any(a.keyword is not None for a in call.args):
            out = ()
        if out is None and q in LINEAR_COST_FUNCTIONS and q.rsplit(".", 1)[1] in _REDUCTIONS \
                and len(shapes) == 1:
            out = _reduced(model, call, shapes[0])  # `jnp.sum(x, axis=1)`
        if out is None and q in LINEAR_COST_FUNCTIONS and shapes and q.rsplit(".", 1)[1] not in _REDUCTIONS:
            out = shapes[0]
            for s in shapes[1:]:
                out = _broadcast(out, s)
        if out is None:
            return None
        sizes = [_elements(s) for s in shapes] + [_elements(out)]
        cost = _product(sizes[:-1]) if q in PRODUCT_COST_FUNCTIONS else max(sizes)
        work.add(cost, times, batch)
        return _Array(out)
    if q in MATRIX_COST_FUNCTIONS:
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        shape = _expr_work(model, call.args[0].value, env, batch, depth, work, times)
        if shape is None or len(shape) < 2 or shape[-1] != shape[-2]:
            return None
        work.add(_elements(shape) * shape[-1], times, batch)
        kept = MATRIX_COST_FUNCTIONS[q]
        return _Array(shape if kept == "matrix" else shape[:-1] if kept == "vector" else shape[:-2])
    mapped = _vmapped(model, call)
    if mapped is not None:
        if batch != 1 or depth >= _DEPTH:
            return None
        callee, in_axes = mapped
        found = _bind(model, call, callee, env, batch, depth, work, times, in_axes)
        if found is None or found[1] is None:
            return None
        inner, size = found
        out = _body_work(model, callee, inner, size, depth + 1, work, times)
        return None if out is None else _Array((size,) + out)
    callee = _plain_def(model, call)
    if callee is not None and depth < _DEPTH:
        inner = _bind(model, call, callee, env, batch, depth, work, times, None)
        return None if inner is None else _body_work(model, callee, inner, batch, depth + 1, work, times)
    mapped = _jitted_vmap(model, call)
    if mapped is not None and depth < _DEPTH and batch == 1:
        # `jax.jit(jax.vmap(f))(xs)`: one program of the batched body.
        callee, in_axes = mapped
        found = _bind(model, call, callee, env, batch, depth, work, times, in_axes)
        if found is None or found[1] is None:
            return None
        inner, size = found
        program = EagerWork()
        out = _body_work(model, callee, {k: _Array(v) for k, v in inner.items()}, size, depth + 1, program, 1)
        if out is None or program.programs:
            return None
        work.add_program(program, times)
        return _Array((size,) + out)
    callee = _jitted_def(model, call)
    if callee is not None and depth < _DEPTH and batch == 1:
        inner = _bind(model, call, callee, env, batch, depth, work, times, None)
        if inner is None:
            return None
        # Under jit every argument is a traced array, a Python number included. (A jitted
        # call inside the body is left unknown.)
        program = EagerWork()
        out = _body_work(model, callee, {k: _Array(v) for k, v in inner.items()}, 1, depth + 1, program, 1)
        if out is None or program.programs:
            return None
        work.add_program(program, times)
        return _Array(out)
    return None


def _jitted_def(model, call: cst.Call):
    """The undecorated `def` of this file that a call runs as one jitted program: `g(x)`
    where `g = jax.jit(f)` (its options change what compiles, not what runs), or `f(x)` of
    a `def` decorated with `@jax.jit` alone."""
    if isinstance(call.func, cst.Call):  # `jax.jit(f)(x)`
        wrapping = call.func
    elif not isinstance(call.func, cst.Name):
        return None
    else:
        node = getattr(model.binding_in_effect(call.func), "node", None)
        wrapping = node.value if isinstance(node, cst.Assign) else None
    if wrapping is not None:
        value = wrapping
        if not isinstance(value, cst.Call) or model.qualname(value.func) != "jax.jit" or not value.args \
                or value.args[0].keyword is not None or not isinstance(value.args[0].value, cst.Name):
            return None
        callee = getattr(model.binding_in_effect(value.args[0].value), "function", None)
        decorators = ()
    else:
        callee = getattr(model.binding_in_effect(call.func), "function", None)
        if callee is None or callee.is_lambda:
            return None
        decorators = callee.node.decorators
        if len(decorators) != 1 or model.qualname(decorators[0].decorator) != "jax.jit":
            return None
    if callee is None or callee.is_lambda or callee.vararg or callee.kwarg \
            or len(callee.node.decorators) != len(decorators):
        return None
    return callee


def _jitted_vmap(model, call: cst.Call):
    """`_vmapped` of `jax.vmap(f, ...)` that a call runs jitted: `jf(x)` of
    `jf = jax.jit(batched)` with `batched = jax.vmap(f)`, or `jax.jit(jax.vmap(f))(x)`."""
    func = call.func
    if isinstance(func, cst.Name):
        func = getattr(getattr(model.binding_in_effect(func), "node", None), "value", None)
    if not isinstance(func, cst.Call) or model.qualname(func.func) != "jax.jit" or len(func.args) != 1 \
            or func.args[0].keyword is not None or func.args[0].star:
        return None
    return _vmapped_func(model, func.args[0].value)


def _method(call: cst.Call, default: str):
    """The `method="..."` a call states (None when it is not a plain string)."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "method":
            value = a.value
            return value.evaluated_value if isinstance(value, cst.SimpleString) else None
    return default


def _contracted(name: str, a: tuple, b: tuple):
    """The result shape of `jnp.dot(a, b)` / `matmul` / `inner` / `vdot` / `outer` on shapes
    of rank 1 or 2 (None for other ranks); `searchsorted(a, v)` gives one index per value."""
    if name == "searchsorted":
        return b if len(a) == 1 else None
    if name == "outer":
        return (_elements(a), _elements(b))
    if name == "vdot":
        return ()
    if not 1 <= len(a) <= 2 or not 1 <= len(b) <= 2:
        return None
    return a[:-1] + (b[1:] if name != "inner" or len(b) == 1 else b[:-1])


def _plain_def(model, call: cst.Call):
    """The undecorated `def` of this file that `f(x)` names directly (not a name bound to
    `jax.jit(f)` or `jax.vmap(f)`): calling it runs its body eagerly."""
    if not isinstance(call.func, cst.Name):
        return None
    binding = model.binding_in_effect(call.func)
    callee = getattr(binding, "function", None)
    if callee is None or callee.is_lambda or _decorated(callee) or callee.vararg or callee.kwarg:
        return None
    return callee


def _decorated(callee) -> bool:
    """A def under a transform's decorator: a call of it runs transformed (the contexts of
    other call sites, `jax.jit(f)` elsewhere, leave a direct call `f(x)` eager)."""
    return bool(callee.node.decorators) if isinstance(callee.node, cst.FunctionDef) else True


_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "any", "all"})


class _Array(tuple):
    """The shape of a JAX array, even where it is `()`, so arithmetic on it dispatches an
    op (the same `x ** 2` on a Python number dispatches nothing): what a JAX function
    returns, each example of what an eager `vmap` maps (an op on it runs over the
    batch), a parameter of a jitted function (a tracer, a Python number included)."""

    def __bool__(self) -> bool:
        return True


class _Items:
    """A list the followed code builds with `append` (`output = []`, then
    `output.append(jnp.dot(...))` in a counted loop): how many items, all of one shape.
    `times` is how often the statement that made it runs; an append run `t` times in all
    adds `t / times` items to each list made."""

    def __init__(self, times: int):
        self.times = times
        self.length = 0
        self.shape = None

    def add(self, shape, times: int) -> bool:
        if times % self.times or self.shape is not None and tuple(shape) != tuple(self.shape):
            return False
        self.shape = tuple(shape)
        self.length += times // self.times
        return True

    def stacked(self, axis: int = 0):
        """The shape `jnp.stack(items, axis)` / `jnp.array(items)` gives; None if unknown."""
        if self.shape is None or not -len(self.shape) - 1 <= axis <= len(self.shape):
            return None
        axis = axis % (len(self.shape) + 1)
        return _Array(self.shape[:axis] + (self.length,) + self.shape[axis:])


def _items_argument(model, call: cst.Call, env):
    """`jnp.stack(output, axis=1)`: the `_Items` list it is given and the stated axis."""
    from jaxlint.engine.sizes import stated_value

    positional = [a for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if len(positional) != 1 or positional[0].star or not isinstance(positional[0].value, cst.Name) \
            or not isinstance(env.get(positional[0].value.value), _Items) or set(keywords) - {"axis", "dtype"}:
        return None
    axis = stated_value(model, keywords["axis"]) if "axis" in keywords else 0
    return (env[positional[0].value.value], axis) if isinstance(axis, int) else None


def _reduced(model, call: cst.Call, shape):
    """The shape `jnp.sum(x, axis=1)` gives: the stated int axis taken off."""
    from jaxlint.engine.sizes import stated_value

    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if set(keywords) != {"axis"}:
        return None
    axis = stated_value(model, keywords["axis"])
    if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
        return None
    axis %= len(shape)
    return _Array(tuple(shape[:axis]) + tuple(shape[axis + 1:]))


def _appended(call, env) -> bool:
    """`output.append(x)` on a list the followed code made (`_Items`)."""
    return isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) \
        and call.func.attr.value == "append" and isinstance(call.func.value, cst.Name) \
        and isinstance(env.get(call.func.value.value), _Items) and len(call.args) == 1 \
        and call.args[0].keyword is None and not call.args[0].star


def _broadcast(a, b):
    from jaxlint.engine.sizes import broadcast
    return broadcast(a, b)


def _elements(shape) -> int:
    return _product(list(shape))


def _product(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def _vmapped(model, call: cst.Call):
    """`jax.vmap(f, in_axes=(None, 0))(...)`, or a call of a name bound to it: the
    function of this file it maps, and its `in_axes` (ints and None) or None."""
    from jaxlint.engine.sizes import stated_value

    return _vmapped_func(model, call.func)


def _vmapped_func(model, func):
    """`_vmapped` of the function a call calls (`func`)."""
    from jaxlint.engine.sizes import stated_value

    if isinstance(func, cst.Name):
        binding = model.binding_in_effect(func)
        func = getattr(getattr(binding, "node", None), "value", None)
    if not isinstance(func, cst.Call) or model.qualname(func.func) != "jax.vmap" or not func.args:
        return None
    callee = model.resolve_function(func.args[0].value) \
        if isinstance(func.args[0].value, (cst.Name, cst.Lambda)) else None
    if callee is None or isinstance(callee.node, cst.FunctionDef) and _decorated(callee) \
            or not isinstance(callee.node, (cst.FunctionDef, cst.Lambda)):
        return None
    keywords = {a.keyword.value: a.value for a in func.args if a.keyword is not None}
    positional = [a.value for a in func.args[1:] if a.keyword is None]
    if set(keywords) - {"in_axes", "out_axes"}:
        return None
    axes = keywords.get("in_axes", positional[0] if positional else None)
    if axes is None:
        return callee, 0
    if isinstance(axes, cst.Name) and axes.value == "None":
        return None
    value = stated_value(model, axes) if not isinstance(axes, cst.Tuple) else tuple(
        None if isinstance(el.value, cst.Name) and el.value.value == "None" else stated_value(model, el.value)
        for el in axes.elements)
    out = keywords.get("out_axes")
    if out is not None and stated_value(model, out) != 0:
        return None
    return callee, value


def _bind(model, call, callee, env, batch, depth, work, times, in_axes):
    """The callee's parameters bound to the shapes the call passes (with `in_axes`: the
    mapped axis taken off, and the batch size as the second item)."""
    params = list(callee.positional)
    if any(a.keyword is not None or a.star for a in call.args) or len(call.args) != len(params):
        return None
    inner, size = {}, None
    for i, (param, arg) in enumerate(zip(params, call.args)):
        shape = _expr_work(model, arg.value, env, batch, depth, work, times)
        if shape is None:
            return None
        if in_axes is not None:
            axis = in_axes[i] if isinstance(in_axes, tuple) else in_axes
            if axis is not None:
                if axis != 0 or not shape or size not in (None, shape[0]):
                    return None
                size, shape = shape[0], _Array(shape[1:])
        inner[param] = shape
    return (inner, size) if in_axes is not None else inner


def _expr_work(model, expr, env, batch, depth, work, times):
    """The shape of `expr`, adding the ops it dispatches to `work`."""
    from jaxlint.engine.sizes import array_shape

    if isinstance(expr, cst.Call):
        return _call_work(model, expr, env, batch, depth, work, times)
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.MatrixMultiply):
            return None
        left = _expr_work(model, expr.left, env, batch, depth, work, times)
        right = _expr_work(model, expr.right, env, batch, depth, work, times)
        if left is None or right is None:
            return None
        out = _broadcast(left, right)
        if isinstance(left, _Array) or isinstance(right, _Array):
            out = _Array(out)
        if out or left or right:
            work.add(_elements(out), times, batch)
        return out
    if isinstance(expr, cst.UnaryOperation):
        inner = _expr_work(model, expr.expression, env, batch, depth, work, times)
        if inner:
            work.add(_elements(inner), times, batch)
        return inner
    if isinstance(expr, cst.Subscript):
        for el in expr.slice:
            part = el.slice
            for bound in ((part.lower, part.upper, part.step) if isinstance(part, cst.Slice) else (part.value,)):
                if isinstance(bound, cst.Name) and bound.value == "None":
                    continue
                if bound is not None and _expr_work(model, bound, env, batch, depth, work, times) is None:
                    return None
        base = _expr_work(model, expr.value, env, batch, depth, work, times)
        out = array_shape(model, expr, env)
        if base is None or out is None:
            return None
        if base:
            work.add(_elements(base), times, batch)
        return out
    if isinstance(expr, (cst.Name, cst.Integer, cst.Float)):
        return array_shape(model, expr, env)
    return None


def _sequence_work(model, seq, env, batch, depth, work, times):
    """`[jnp.dot(x[i - 1:i + 2], w) for i in range(1, len(x) - 1)]` or `[a, b]` handed to
    `jnp.array` / `jnp.stack`: the stacked shape; each element's ops run once per item."""
    if isinstance(seq, cst.ListComp):
        clause = seq.for_in
        if clause.inner_for_in is not None or clause.ifs or not isinstance(clause.target, cst.Name):
            return None
        count = _trip_count(model, clause.iter, env)
        if count is None:
            return None
        shape = _expr_work(model, seq.elt, {**env, clause.target.value: ()}, batch, depth, work, times * count)
        return None if shape is None else (count,) + shape
    shapes = [_sequence_work(model, el.value, env, batch, depth, work, times)
              if isinstance(el.value, (cst.List, cst.Tuple)) else _expr_work(model, el.value, env, batch, depth, work, times)
              for el in seq.elements]
    if not shapes or any(s is None or isinstance(el, cst.StarredElement) or s != shapes[0]
                         for s, el in zip(shapes, seq.elements)):
        return None
    return (len(shapes),) + shapes[0]


def _trip_count(model, iterable, env) -> int | None:
    """How many items `range(...)` (bounds stated, `len(x)` of a sized `x`) or
    `enumerate(x)` / iterating a sized array gives."""
    from jaxlint.engine.sizes import array_shape

    if isinstance(iterable, cst.Call) and model.qualname(iterable.func) == "builtins.range":
        bounds = [_int(model, a.value, env) for a in iterable.args]
        if not 1 <= len(bounds) <= 3 or any(b is None for b in bounds) or any(a.keyword for a in iterable.args):
            return None
        return len(range(*bounds)) if len(bounds) < 3 or bounds[2] else None
    if isinstance(iterable, cst.Call) and model.qualname(iterable.func) == "builtins.enumerate" \
            and len(iterable.args) == 1:
        iterable = iterable.args[0].value
    shape = array_shape(model, iterable, env)
    return shape[0] if shape else None


def _int(model, expr, env) -> int | None:
    from jaxlint.engine.sizes import array_shape, stated_value

    if isinstance(expr, cst.Call) and model.qualname(expr.func) == "builtins.len" and len(expr.args) == 1:
        shape = array_shape(model, expr.args[0].value, env)
        return shape[0] if shape else None
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) \
            and expr.value.attr.value == "shape" and len(expr.slice) == 1 \
            and isinstance(expr.slice[0].slice, cst.Index):
        shape = array_shape(model, expr.value.value, env)  # `xs.shape[-1]`
        index = stated_value(model, expr.slice[0].slice.value)
        if shape is None or not isinstance(index, int) or not -len(shape) <= index < len(shape):
            return None
        return shape[index]
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
        left, right = _int(model, expr.left, env), _int(model, expr.right, env)
        if left is None or right is None:
            return None
        return left + right if isinstance(expr.operator, cst.Add) else left - right
    value = stated_value(model, expr)
    return value if isinstance(value, int) else None


def _body_work(model, callee, env, batch, depth, work, times):
    """Follow `callee`'s body in order with `env`: each assignment binds a shape, a `for`
    over a sized array or a stated `range` runs its body that many times; the shape of
    the one `return`. None at any statement it does not follow."""
    env = dict(env)
    if isinstance(callee.node, cst.Lambda):
        return _expr_work(model, callee.node.body, env, batch, depth, work, times)
    out = _block_work(model, callee.node.body, env, batch, depth, work, times)
    return out if isinstance(out, tuple) else None


_NO_RETURN = object()


def _block_work(model, block, env, batch, depth, work, times):
    body = block.body if isinstance(block, cst.IndentedBlock) else [block]
    return _statements(model, body, env, batch, depth, work, times)


def _statements(model, body, env, batch, depth, work, times, outer=False):
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                    continue
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) \
                        and not _appended(small.value, env):
                    if _expr_work(model, small.value, env, batch, depth, work, times) is None:
                        return None
                    continue
                if isinstance(small, cst.Return) and not outer:
                    return _expr_work(model, small.value, env, batch, depth, work, times) if small.value else None
                if isinstance(small, cst.Assign) and _transformed(model, small.value):
                    continue  # `g = jax.jit(f)` binds a function: it compiles at its first call
                if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                        and isinstance(small.targets[0].target, cst.Name) \
                        and isinstance(small.value, cst.List) and not small.value.elements:
                    env[small.targets[0].target.value] = _Items(times)  # `output = []`
                    continue
                if isinstance(small, cst.Expr) and _appended(small.value, env):
                    call = small.value
                    items = env[call.func.value.value]
                    shape = _expr_work(model, call.args[0].value, env, batch, depth, work, times)
                    if shape is None or not items.add(shape, times):
                        return None
                    continue
                if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                        and isinstance(small.targets[0].target, cst.Name):
                    shape = _expr_work(model, small.value, env, batch, depth, work, times)
                    if shape is None:
                        return None
                    env[small.targets[0].target.value] = shape
                elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) \
                        and small.target.value in env and not isinstance(small.operator, cst.MatrixMultiplyAssign):
                    value = _expr_work(model, small.value, env, batch, depth, work, times)
                    if value is None:
                        return None
                    shape = _broadcast(env[small.target.value], value)
                    work.add(_elements(shape), times, batch)
                    env[small.target.value] = shape
                else:
                    return None
        elif isinstance(stmt, cst.For) and stmt.orelse is None:
            count = _trip_count(model, stmt.iter, env)
            item = _loop_item(model, stmt, env)
            if count is None or item is None:
                return None
            env.update(item)
            if _statements(model, stmt.body.body, env, batch, depth, work, times * count, outer) is not _NO_RETURN:
                return None
        else:
            return None
    return _NO_RETURN


def _transformed(model, value) -> bool:
    """`jax.jit(f)`, `jax.vmap(f)`: a transform applied to a function returns a function
    and dispatches nothing."""
    from jaxlint.jax_api import TRANSFORMS

    return isinstance(value, cst.Call) and model.qualname(value.func) in TRANSFORMS


def _loop_item(model, loop: cst.For, env):
    """The names `for k, c in enumerate(coeffs)` / `for i in range(n)` / `for row in x`
    binds, with their shapes (a counter is a Python int, `()`)."""
    from jaxlint.engine.sizes import array_shape

    it, target = loop.iter, loop.target
    if isinstance(it, cst.Call) and model.qualname(it.func) == "builtins.range" and isinstance(target, cst.Name):
        return {target.value: ()}
    counter = None
    if isinstance(it, cst.Call) and model.qualname(it.func) == "builtins.enumerate" and len(it.args) == 1 \
            and isinstance(target, cst.Tuple) and len(target.elements) == 2:
        counter, target, it = target.elements[0].value, target.elements[1].value, it.args[0].value
        if not isinstance(counter, cst.Name):
            return None
    shape = array_shape(model, it, env)
    if not shape or not isinstance(target, cst.Name):
        return None
    out = {target.value: shape[1:]}
    if counter is not None:
        out[counter.value] = ()
    return out
