"""JAX804: vmap's in_axes / out_axes that do not fit the function's arguments or outputs."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint.engine import tracing
from jaxlint.engine.constants import stated_length, tuple_length
from jaxlint.jax_api import VMAP_TRANSFORMS
from jaxlint.rules import _transforms as tf
from jaxlint.rules._known_arrays import known_shape, leading_size
from jaxlint.rules.base import Report, Rule

_POSITIONS = {q: p for q, p in VMAP_TRANSFORMS.items()}
_NAMES = ("in_axes", "out_axes")

# JAX's own words for an in_axes tuple that does not fit the positional arguments, and the fix.
_JAX_ERROR = ("ValueError (vmap in_axes must be ... a tuple of entries corresponding to the positional "
              "arguments passed to the function)")
_FIX = "give one entry per positional argument"
_RAISES = f"{_JAX_ERROR}; {_FIX}"


class VmapAxesMismatch(Rule):
    code = "JAX804"
    name = "vmap-axes-mismatch"
    summary = ("vmap in_axes / out_axes that do not match the arguments passed or the outputs "
               "returned raise ValueError")
    confirm_kind = "trace-error"
    raises = "ValueError"
    # An axis that is not an int or None (`in_axes=(True, False)`) fails in vmap itself.
    also_raises = ("TypeError",)

    def check(self) -> Iterator[Report]:
        model = self.model
        for app in tf.applications(model, VMAP_TRANSFORMS, _POSITIONS, _NAMES):
            bad = [(name, leaf) for name in _NAMES if app.options.get(name) is not None
                   for leaf in _non_int_leaves(app.options[name])]
            if bad:
                name, leaf = bad[0]
                yield self.report(leaf, (
                    f"{name} entry `{self.source(leaf)}` is not an int or None: `jax.vmap` raises "
                    f"TypeError ({name} must be an int, None, or (nested) container with those types "
                    f"as leaves); write 0 for a mapped argument and None for one that is not"),
                    model.function_of(app.node), expected="TypeError")
                continue
            in_axes = app.options.get("in_axes")
            if in_axes is not None:
                yield from self._in_axes(app, in_axes)
            elif not app.unreadable:
                # The default in_axes=0 maps every positional argument along axis 0.
                yield from self._in_axes(app, None)
            out_axes = app.options.get("out_axes")
            if out_axes is not None:
                yield from self._out_axes(app, out_axes)

    # ------------------------------------------------------------ in_axes
    def _in_axes(self, app: tf.Applied, in_axes: Optional[cst.BaseExpression]) -> Iterator[Report]:
        model = self.model
        info = app.info
        where = model.function_of(app.node)
        entries = _entries(in_axes) if in_axes is not None else None
        if entries is not None and info.vararg is None \
                and not (app.bound - set(info.positional[:app.offset])):
            n = len(app.positional)
            if len(entries) > n:
                yield self.report(in_axes, (
                    f"in_axes has {len(entries)} entries, but {app.label} takes only {n} "
                    f"positional parameter{'s' if n != 1 else ''}: every call raises {_RAISES}"),
                    where, on_call=True)
                return
        passed = tuple_length(model, in_axes) if entries is None and isinstance(in_axes, cst.Name) else None
        if passed is not None and info.vararg is None \
                and not (app.bound - set(info.positional[:app.offset])) and passed[0] > len(app.positional):
            # `in_axes` a parameter, given a tuple at a call site (`mse(model, x, y, in_axes)`).
            n = len(app.positional)
            origin = f" (from the call on line {model.line_of(passed[1])})" if passed[1] is not None else ""
            yield self.report(in_axes, (
                f"in_axes is a tuple of {passed[0]}{origin}, "
                f"but {app.label} takes only {n} positional parameter{'s' if n != 1 else ''}: the "
                f"call raises {_RAISES}"), where, on_call=True)
            return
        # `in_axes = (0,) * self.n + (None,) * len(args)`: a length the code states through
        # names, attributes and call sites, at every call.
        computed = stated_length(model, in_axes) if entries is None and in_axes is not None else None
        for call in tf.applied_calls(self.model, app):
            args = call.args
            n_axes = len(entries) if entries is not None else computed
            starred = any(a.star for a in args)
            if starred or computed is not None:
                # `loop_eval(*ys, *args)`: as many arguments as the starred sequences hold.
                n_pos = _positional_count(model, args)
                if n_axes is not None and n_pos is not None and n_axes != n_pos:
                    how = "" if entries is not None else \
                        f" (`{self.source(in_axes)}`, with the values this file gives it)"
                    yield self.report(in_axes, (
                        f"in_axes has {n_axes} entries{how}, but the call on line {model.line_of(call)} "
                        f"passes {n_pos} positional argument{'s' if n_pos != 1 else ''}: it raises "
                        f"{_RAISES}"), where, on_call=True)
                    return
                if starred:
                    continue
            pos = [a.value for a in args if a.keyword is None]
            if entries is not None and len(entries) != len(pos):
                kw = [a.keyword.value for a in args if a.keyword is not None]
                extra = (f" (keyword arguments such as `{kw[0]}` do not count: vmap maps them "
                         f"along axis 0)" if kw else "")
                yield self.report(in_axes, (
                    f"in_axes has {len(entries)} entries, but the call on line "
                    f"{model.line_of(call)} passes {len(pos)} positional argument"
                    f"{'s' if len(pos) != 1 else ''}{extra}: it raises {_RAISES}"),
                    where, on_call=True)
                return
            for i, arg in enumerate(pos):
                if in_axes is None:
                    axis = 0
                else:
                    axis = _axis(entries[i] if entries is not None else in_axes)
                if axis is None:
                    continue
                rank = tf.known_rank(model, arg)
                if rank is None or -rank <= axis < rank:
                    continue
                mapped = "in_axes" if in_axes is not None else "the default in_axes=0"
                yield self.report(in_axes if in_axes is not None else app.node, (
                    f"{mapped} maps argument {i} (`{self.source(arg)}`) along axis {axis}, but it "
                    f"has {rank} dimension{'s' if rank != 1 else ''}: the call on line "
                    f"{model.line_of(call)} raises ValueError (vmap was requested to map its "
                    f"argument along axis {axis}, which implies that its rank should be at least "
                    f"{axis + 1 if axis >= 0 else -axis}); "
                    + ("use None for an argument that is not batched" if rank == 0 else
                       f"use an axis from 0 to {rank - 1}, or None")),
                    where, on_call=True)
                return
            mismatch = self._sizes_disagree(call, pos, entries, in_axes)
            if mismatch is not None:
                # On the argument whose size differs: this call raises, at its own line.
                yield self.report(mismatch[0], mismatch[1], where)
                return
        if entries is None:
            return
        for pc in tf.partial_calls(model, app):
            pos = pc.positional
            if pc.starred or len(entries) == len(pos):
                continue
            kw = pc.keywords
            extra = (f"; keyword arguments such as `{kw[0]}` do not count: vmap maps them along "
                     f"axis 0" if kw else "")
            # On the call: the in_axes fit the function, and this call raises.
            yield self.report(pc.call, (
                f"in_axes on line {model.line_of(in_axes)} has {len(entries)} entries, but this "
                f"call of `{self.source(pc.partial)}` (line {model.line_of(pc.partial)}) passes "
                f"{len(pos)} positional argument{'s' if len(pos) != 1 else ''}{extra}: it raises "
                f"{_JAX_ERROR}; bind the argument by position, or {_FIX}"), model.function_of(pc.call))
            return

    def _sizes_disagree(self, call: cst.Call, pos, entries, in_axes):
        """The first argument whose mapped axis has another size than an earlier one's
        (keyword arguments are mapped along axis 0): vmap raises ValueError."""
        mapped = []
        for i, arg in enumerate(pos):
            axis = 0 if in_axes is None else _axis(entries[i] if entries is not None else in_axes)
            if axis is not None:
                mapped.append((arg, axis, f"argument {i}"))
        mapped += [(a.value, 0, f"keyword argument `{a.keyword.value}`") for a in call.args
                   if a.keyword is not None]
        first = None
        for arg, axis, label in mapped:
            shape = known_shape(self.model, arg, numpy=True)
            if shape is not None and -len(shape) <= axis < len(shape):
                size = shape[axis]
            elif shape is None and axis == 0:
                size = leading_size(self.model, arg)  # `jax.random.split(key, 8)`: 8 keys
            else:
                size = None
            if size is None:
                continue
            if first is None:
                first = (size, label, arg)
            elif size != first[0]:
                return arg, (
                    f"vmap maps {label} (`{self.source(arg)}`) over an axis of size {size}, but {first[1]} "
                    f"(`{self.source(first[2])}`) over one of size {first[0]}: the call on line "
                    f"{self.model.line_of(call)} raises ValueError (vmap got inconsistent sizes for "
                    f"array axes to be mapped); map axes of the same size, or None for an argument "
                    f"that is not batched")
        return None

    # ------------------------------------------------------------ out_axes
    def _out_axes(self, app: tf.Applied, out_axes: cst.BaseExpression) -> Iterator[Report]:
        model = self.model
        entries = _entries(out_axes)
        if entries is None:
            return
        returns = tf.return_values(app.info)
        if not returns:
            return
        what = set()
        for r in returns:
            found = tf.container_literal(model, r, app.info)
            if found is not None and found.kind in ("a tuple", "a list") and found.length is not None:
                what.add((found.kind, found.length))
            elif found is None and tf.single_value(model, r):
                what.add(("a single array", None))
            else:
                return
        if len(what) != 1:
            return
        kind, length = what.pop()
        given = "a list" if isinstance(out_axes, cst.List) else "a tuple"
        if kind == "a single array":
            problem = f"out_axes is {given} of {len(entries)}, but {app.label} returns a single array"
            fix = "give a single axis (an int)"
        elif length != len(entries):
            problem = (f"out_axes has {len(entries)} entries, but {app.label} returns {kind} "
                       f"of {length}")
            fix = "give one entry per output"
        elif given != kind:
            problem = (f"out_axes is {given}, but {app.label} returns {kind}: the tree "
                       f"structures differ")
            fix = f"write out_axes as {kind}"
        else:
            return
        yield self.report(out_axes, (
            f"{problem}: calling the result raises ValueError (vmap out_axes specification must "
            f"be a tree prefix of the corresponding value); {fix}"), model.function_of(app.node),
            on_call=True)


def _positional_count(model, args) -> Optional[int]:
    """How many positional arguments a call passes, its `*seq` parts by their stated length."""
    n = 0
    for a in args:
        if a.star == "**":
            continue
        if a.star == "*":
            inner = stated_length(model, a.value)
            if inner is None:
                return None
            n += inner
        elif a.keyword is None:
            n += 1
    return n


def _entries(expr: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The entries of a tuple / list literal (None: not one, or with `*`)."""
    if isinstance(expr, (cst.Tuple, cst.List)) \
            and not any(isinstance(el, cst.StarredElement) for el in expr.elements):
        return [el.value for el in expr.elements]
    return None


def _axis(expr: cst.BaseExpression) -> Optional[int]:
    got = tracing._literal_ints(expr)
    return got[0] if got is not None and len(got) == 1 and not isinstance(expr, (cst.Tuple, cst.List)) else None


def _non_int_leaves(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The leaves of a literal axes spec that vmap rejects: booleans (`True` is an int to
    Python, but not to vmap), floats and strings."""
    if isinstance(expr, (cst.Tuple, cst.List)):
        for el in expr.elements:
            if not isinstance(el, cst.StarredElement):
                yield from _non_int_leaves(el.value)
    elif isinstance(expr, cst.Dict):
        for el in expr.elements:
            if isinstance(el, cst.DictElement):
                yield from _non_int_leaves(el.value)
    elif isinstance(expr, cst.Name) and expr.value in ("True", "False") \
            or isinstance(expr, (cst.Float, cst.SimpleString)):
        yield expr
