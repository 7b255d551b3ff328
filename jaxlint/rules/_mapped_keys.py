"""One key handed to every call that `jax.vmap` makes (JAX501).

vmap runs the function once per element of the mapped axis. An argument whose
`in_axes` entry is None reaches every one of those calls as it was passed, and
an argument replicated along the mapped axis (`jnp.broadcast_to(key, (n,) +
key.shape)`, `jnp.repeat(key[None], n, axis=0)`, `jnp.tile(key[None], (n, 1))`)
gives every call the same slice. When that argument is a key the function draws
from (or splits), every mapped call draws the same numbers, and vmap stacks them
into one result: identical noise or dropout masks on every row (checked, jax
0.10.2: `vmap(f, in_axes=(0, None))(xs, key)` with `f` adding `normal(key,
x.shape)` gives equal rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from jaxlint.engine import callees, tracing
from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.keyflow import KeyEvent, key_consumers
from jaxlint.engine.unused import never_called
from jaxlint.jax_api import VMAP_TRANSFORMS
from jaxlint.rules import _transforms as tf

# Calls that copy their first argument along a new leading axis, and how to tell
# that they do: `broadcast_to(k, (n,) + k.shape)`, `repeat(k[None], n, axis=0)`,
# `tile(k[None], (n, 1))`.
_REPLICATING = frozenset({"jax.numpy.broadcast_to", "jax.numpy.repeat", "jax.numpy.tile"})


@dataclass
class MappedKey:
    call: cst.Call  # the call of the vmapped function
    arg: cst.BaseExpression  # what it passes for the key
    info: FunctionInfo  # the function vmap maps
    param: str  # its key parameter
    kind: KeyEvent
    replicated: Optional[cst.Call]  # the broadcast / repeat / tile, for a mapped argument
    label: str  # how the code names the mapped function


def mapped_keys(model) -> Iterator[MappedKey]:
    consumers = key_consumers(model)
    if not consumers:
        return
    seen = set()
    for info, offset, axes, calls, label in _vmapped(model):
        entries = consumers.get(info)
        if not entries:
            continue
        positional = info.positional[offset:]
        for call in calls:
            if call in seen or any(a.star for a in call.args):
                continue
            args = [a.value for a in call.args if a.keyword is None]
            for param, sub, kind in entries:
                if sub is not None or param not in positional:
                    continue
                index = positional.index(param)
                if index >= len(args):
                    continue
                axis = _axis(axes, index, len(positional))
                if axis == "unknown":
                    continue
                arg = args[index]
                replicated = None
                if axis is not None:
                    replicated = _replicated(model, arg) if axis == 0 else None
                    if replicated is None:
                        continue
                function = model.function_of(call)
                if function is not None and never_called(model, function):
                    continue
                if isinstance(model.parent(call), cst.Expr):
                    continue  # the result is dropped: no numbers are read
                seen.add(call)
                yield MappedKey(call, arg, info, param, kind, replicated, label)
                break


def _vmapped(model):
    """(function, bound positional parameters, in_axes expression or None, calls)."""
    done = set()
    for app in tf.applications(model, VMAP_TRANSFORMS, dict(VMAP_TRANSFORMS), ("in_axes", "out_axes")):
        done.add(app.node)
        if app.unreadable or app.info.vararg is not None:
            continue
        # Only the receiver bound, by an object vmapped whole (`jax.vmap(model, in_axes=(None,
        # 0))(key, xs)` of an object whose class has `__call__`: a model run on a batch of
        # examples): the mapped arguments are `__call__`'s after `self`.
        if app.bound and not (app.info.name == "__call__" and app.offset == 1
                              and app.bound == frozenset(app.info.positional[:1])):
            continue
        target = tracing.wrapped_target(app.node) if app.bound and isinstance(app.node, cst.Call) else None
        label = model.module.code_for_node(target) if target is not None else app.info.name
        yield app.info, app.offset, app.options.get("in_axes"), tf.applied_calls(model, app), label
    # `jax.vmap(self.ff)(x, keys)`: a bound method, or an object whose class has `__call__`.
    for call in model.nodes(cst.Call):
        if model.qualname(call.func) not in VMAP_TRANSFORMS or call in done:
            continue
        parent = model.parent(call)
        target = tracing.wrapped_target(call)
        if not (isinstance(parent, cst.Call) and parent.func is call) or not isinstance(target, cst.Attribute):
            continue
        info = callees.function_of_callable(model, target)
        if info is None:
            klass = callees.instance_class(model, target)
            info = model.class_method(klass, "__call__") if klass is not None else None
        if info is None or info.is_lambda or info.vararg is not None or not info.is_method:
            continue
        from jaxlint.engine.evaluate import _is_staticmethod
        options, unreadable = tf._options(call, VMAP_TRANSFORMS["jax.vmap"], ("in_axes", "out_axes"), skip=1)
        if unreadable:
            continue
        yield (info, 0 if _is_staticmethod(info) else 1, options.get("in_axes"), [parent],
               model.module.code_for_node(target))


def _axis(axes: Optional[cst.BaseExpression], index: int, n: int):
    """The in_axes entry of position `index`: an int, None, or "unknown"."""
    if axes is None:
        return 0
    if isinstance(axes, (cst.Tuple, cst.List)):
        if len(axes.elements) != n or any(isinstance(e, cst.StarredElement) for e in axes.elements):
            return "unknown"
        axes = axes.elements[index].value
    if isinstance(axes, cst.Name) and axes.value == "None":
        return None
    if isinstance(axes, cst.Integer):
        return int(axes.value)
    return "unknown"


def _replicated(model, arg: cst.BaseExpression) -> Optional[cst.Call]:
    """The call that made `arg` by copying one value along a new leading axis."""
    value = arg
    if isinstance(arg, cst.Name):
        values = model.assigned_values(arg)
        if not values or len(values) != 1:
            return None
        value = values[0]
    if not isinstance(value, cst.Call) or model.qualname(value.func) not in _REPLICATING:
        return None
    q = model.qualname(value.func)
    pos = [a.value for a in value.args if a.keyword is None and not a.star]
    kw = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
    if not pos:
        return None
    source = pos[0]
    if q == "jax.numpy.broadcast_to":
        shape = pos[1] if len(pos) > 1 else kw.get("shape")
        return value if _new_axis(source) or _prepends_to_shape_of(model, shape, source) else None
    if not _new_axis(source):
        return None
    if q == "jax.numpy.repeat":
        axis = pos[2] if len(pos) > 2 else kw.get("axis")
        return value if isinstance(axis, cst.Integer) and axis.value == "0" else None
    reps = pos[1] if len(pos) > 1 else kw.get("reps")
    if isinstance(reps, (cst.Tuple, cst.List)) and reps.elements:
        rest = reps.elements[1:]
        if all(isinstance(e.value, cst.Integer) and e.value.value == "1" for e in rest):
            return value
    return None


def _new_axis(expr: cst.BaseExpression) -> bool:
    """`k[None]`, `k[None, ...]`, `k[jnp.newaxis]`: a leading axis of length 1."""
    if not isinstance(expr, cst.Subscript) or not expr.slice:
        return False
    first = expr.slice[0].slice
    if not isinstance(first, cst.Index):
        return False
    v = first.value
    if isinstance(v, cst.Name) and v.value == "None":
        return True
    return isinstance(v, cst.Attribute) and v.attr.value == "newaxis"


def _prepends_to_shape_of(model, shape: Optional[cst.BaseExpression], source: cst.BaseExpression) -> bool:
    """`(n,) + k.shape` or `(n, *k.shape)` with `k` the broadcast value."""
    code = model.module.code_for_node
    want = code(source) + ".shape"
    if isinstance(shape, cst.BinaryOperation) and isinstance(shape.operator, cst.Add):
        return isinstance(shape.left, cst.Tuple) and code(shape.right) == want
    if isinstance(shape, cst.Tuple) and len(shape.elements) >= 2:
        last = shape.elements[-1]
        return isinstance(last, cst.StarredElement) and code(last.value) == want
    return False
