"""JAX203: a traced value used as a Python integer: `range(n)`, `operator.index`, `seq[i]`."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.tracing import library_application
from jaxlint.engine.values import Shape
from jaxlint.jax_api import AXIS_ARGUMENTS, AXIS_TUPLE_REDUCTIONS
from jaxlint.rules._known_arrays import argument
from jaxlint.rules.base import TracedValueRule


class TracedIntegerConversion(TracedValueRule):
    code = "JAX203"
    name = "traced-integer-conversion"
    summary = "range(n) / operator.index / list indexing with a traced value raises TracerIntegerConversionError"
    raises = "TracerIntegerConversionError"

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            if q == "builtins.range":
                for arg in call.args:
                    func = self.traced(arg.value)
                    if func is not None:
                        yield self.report(arg.value, (
                            f"`range()` with traced value `{self.source(arg.value)}` raises "
                            f"TracerIntegerConversionError {self.where(func)}; use lax.fori_loop("
                            f"lower, upper, body, init), or a static bound{self.static_hint(func, arg.value)}"),
                            func)
                        break
            elif q == "operator.index" and call.args:
                func = self.traced(call.args[0].value)
                if func is not None:
                    yield self.report(call, (
                        f"`operator.index()` on traced value `{self.source(call.args[0].value)}` raises "
                        f"TracerIntegerConversionError {self.where(func)}; keep it an array"
                        f"{self.static_hint(func, call.args[0].value)}"), func)
            elif q in AXIS_ARGUMENTS:
                yield from self._traced_axis(call, q)
        for sub in model.nodes(cst.Subscript):
            # A Python list / tuple (static) indexed with a tracer: Python calls __index__.
            base = model.value(sub.value)
            # Only a known list / tuple / str: an imported name may be an array. A list
            # of tracers (a jitted function's list argument) is known by its positions.
            sequence = base.traced and base.shape is Shape.CONTAINER and base.cls is None \
                and bool(base.entries) and all(isinstance(k, int) for k, _ in base.entries)
            if not (base.static or sequence) or base.shape not in (Shape.CONTAINER, Shape.SCALAR) \
                    or len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
                continue
            if not isinstance(sub.value, (cst.List, cst.Tuple, cst.Name, cst.Attribute, cst.Subscript)):
                continue
            idx = sub.slice[0].slice.value
            func = self.traced(idx)
            if func is None or not model.value(idx).array and not isinstance(idx, cst.Name):
                continue
            if self.model.qualname(sub.value) is not None and not isinstance(sub.value, cst.Name):
                continue  # a module attribute, e.g. jnp.s_[i]
            yield self.report(sub, (
                f"indexing the Python sequence `{self.source(sub.value)}` with traced value "
                f"`{self.source(idx)}` raises TracerIntegerConversionError {self.where(func)}; "
                f"make it an array (jnp.asarray(seq)[i]) or use lax.switch for a list of functions"),
                func)
        yield from self._jitted_library_axes()

    def _jitted_library_axes(self):
        """`jax.jit(jnp.sum)(x, 0)`: jit traces every argument of the library function it
        wraps, the axis too, unless the axis is named static."""
        model = self.model
        for call in model.nodes(cst.Call):
            if not isinstance(call.func, cst.Call):
                continue
            found = library_application(model, call)
            if found is None or found[0] not in AXIS_ARGUMENTS:
                continue
            q, static_positions, static_names = found
            position, error = AXIS_ARGUMENTS[q]
            axis = argument(call, position, "axis")
            if axis is None or (isinstance(axis, cst.Name) and axis.value == "None"):
                continue
            if "axis" in static_names or position in static_positions:
                continue
            label = q.replace("jax.numpy.", "jnp.", 1)
            yield self.report(axis, (
                f"`{self.source(call.func)}` traces every argument, so the axis `{self.source(axis)}` "
                f"of `{label}` is a tracer and the call raises {error}: JAX reads an axis as a "
                f"Python int while tracing; pass static_argnames=(\"axis\",) to a jit (in_axes=None "
                f"to a vmap) and `axis=` as a Python int, or close over the axis "
                f"(lambda x: {label}(x, axis=...))"),
                model.function_of(call), expected=error)

    def _traced_axis(self, call: cst.Call, q: str):
        position, error = AXIS_ARGUMENTS[q]
        axis = argument(call, position, "axis")
        if axis is None:
            return
        if isinstance(axis, (cst.Tuple, cst.List)):
            if q not in AXIS_TUPLE_REDUCTIONS:
                return
            error = "TracerIntegerConversionError"
            parts = [el.value for el in axis.elements if not isinstance(el, cst.StarredElement)]
        else:
            parts = [axis]
        for part in parts:
            func = self.traced(part)
            if func is None:
                continue
            label = q.replace("jax.numpy.", "jnp.", 1)
            yield self.report(part, (
                f"`{label}` reads its axis as a Python int while tracing: traced `{self.source(part)}` "
                f"raises {error} {self.where(func)}; pass the axis as a Python int"
                f"{self.static_hint(func, part)}"), func, expected=error)
            return
