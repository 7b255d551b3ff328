"""JAX207: shapes and sizes built from traced values (`jnp.zeros(n)`, `x.reshape(jnp.prod(...))`)."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.tracing import library_application
from jaxlint.jax_api import SHAPE_FUNCTIONS, SHAPE_METHODS, ShapeArgs
from jaxlint.rules.base import TracedValueRule


class TracedShape(TracedValueRule):
    code = "JAX207"
    name = "traced-shape"
    summary = "Shapes and sizes must be static: jnp.zeros(n) with a traced n raises TypeError"
    raises = "TypeError"

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            spec = SHAPE_FUNCTIONS.get(q) if q else None
            if spec is not None:
                if q == "jax.numpy.repeat" and any(
                        a.keyword is not None and a.keyword.value == "total_repeat_length" for a in call.args):
                    continue
                args = _shape_args(call, spec)
                label = "jnp." + q.split(".", 2)[2] if q.startswith("jax.numpy.") else q.replace("jax.", "jax.", 1)
            elif q is None and isinstance(call.func, cst.Attribute) and call.func.attr.value in SHAPE_METHODS \
                    and model.value(call.func.value).traced:
                spec = ShapeArgs((), ())
                args = [a.value for a in call.args if a.keyword is None or a.keyword.value == "shape"]
                label = f".{call.func.attr.value}()"
            else:
                continue
            for arg in args:
                bad = self._traced_part(arg)
                if bad is None:
                    continue
                func = model.abstract_function_of(bad)
                error = spec.raises if spec.raises != "TypeError" else \
                    "TypeError (shapes must be 1D sequences of concrete values)"
                yield self.report(bad, (
                    f"`{label}` with traced size `{self.source(bad)}` raises {error} "
                    f"{self.where(func)}: array shapes must be known at trace time; {spec.fix}"
                    f"{self.static_hint(func, bad)}"), func, expected=spec.raises)
                break

        yield from self._jitted_library_calls()

    def _jitted_library_calls(self):
        """`jax.jit(jax.ops.segment_sum)(data, ids, 3)`: jit traces the size argument too."""
        model = self.model
        for call in model.nodes(cst.Call):
            if not isinstance(call.func, cst.Call):
                continue
            found = library_application(model, call)
            spec = SHAPE_FUNCTIONS.get(found[0]) if found is not None else None
            if spec is None:
                continue
            q, static_positions, static_names = found
            positional = [a.value for a in call.args if a.keyword is None and not a.star]
            if any(a.star for a in call.args):
                continue
            sizes = [(positional[i], i, None) for i in spec.positions if i < len(positional)]
            sizes += [(a.value, None, a.keyword.value) for a in call.args
                      if a.keyword is not None and a.keyword.value in spec.keywords]
            for arg, i, name in sizes:
                if i in static_positions or name in static_names or (
                        isinstance(arg, cst.Name) and arg.value == "None"):
                    continue
                label = q.replace("jax.numpy.", "jnp.", 1)
                keyword = name or dict(zip(spec.positions, spec.keywords)).get(i, spec.keywords[0])
                yield self.report(arg, (
                    f"`{self.source(call.func)}` traces every argument, so the size `{self.source(arg)}` "
                    f"of `{label}` is a tracer and the call raises {spec.raises}: array shapes must "
                    f"be known at trace time; pass static_argnames=(\"{keyword}\",) to a jit (in_axes=None "
                    f"to a vmap) and `{keyword}=` as a Python int, or close over it in a lambda"),
                    model.function_of(call), expected=spec.raises)
                break

    def _traced_part(self, arg):
        if isinstance(arg, (cst.Tuple, cst.List)):
            for el in arg.elements:
                if self.traced(el.value):
                    return el.value
            return None
        return arg if self.traced(arg) else None


def _shape_args(call: cst.Call, spec: ShapeArgs):
    out = []
    positional = [a.value for a in call.args if a.keyword is None]
    for i in spec.positions:
        if i < len(positional):
            out.append(positional[i])
    for a in call.args:
        if a.keyword is not None and a.keyword.value in spec.keywords:
            out.append(a.value)
    return out
