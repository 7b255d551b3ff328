"""JAX204: NumPy functions applied to traced values."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.values import Shape
from jaxlint.jax_api import NUMPY_TRACER_SAFE, SCIPY_ARRAY_FUNCTIONS, SCIPY_NUMPY_ARGUMENTS
from jaxlint.rules.base import TracedValueRule


class NumpyOnTracer(TracedValueRule):
    code = "JAX204"
    name = "numpy-on-tracer"
    summary = "np.asarray / np.array / NumPy ufuncs on a traced value raise TracerArrayConversionError"
    raises = "TracerArrayConversionError"

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            if q in SCIPY_NUMPY_ARGUMENTS:
                yield from self._scipy(call, q)
                continue
            if q in SCIPY_ARRAY_FUNCTIONS:
                yield from self._scipy_arrays(call)
                continue
            if q is None or not q.startswith("numpy.") or q in NUMPY_TRACER_SAFE:
                continue
            if q.startswith(("numpy.random.", "numpy.testing.", "numpy.dtype")):
                continue
            for arg in call.args:
                func = self.traced(arg.value, conversion="numpy")
                if func is None:
                    continue
                jnp_name = "jnp." + q[len("numpy."):]
                yield self.report(call, (
                    f"`{self.source(call.func)}()` on traced value `{self.source(arg.value)}` raises "
                    f"TracerArrayConversionError {self.where(func)}: NumPy needs concrete data; "
                    f"use `{jnp_name}` instead"), func)
                break
        yield from self._indexed()

    def _scipy_arrays(self, call: cst.Call):
        for arg in call.args:
            func = self.traced(arg.value, conversion="numpy")
            if func is None:
                continue
            yield self.report(call, (
                f"`{self.source(call.func)}()` on traced value `{self.source(arg.value)}` raises "
                f"TracerArrayConversionError {self.where(func)}: SciPy converts its arrays with "
                f"np.asarray; use a JAX equivalent (jax.scipy, optax, jaxopt) or "
                f"jax.pure_callback"), func)
            return

    def _indexed(self):
        model = self.model
        for sub in model.nodes(cst.Subscript):
            # A NumPy array indexed with a tracer: NumPy converts the index with __array__.
            if model.value(sub.value).shape is not Shape.NUMPY or len(sub.slice) != 1 \
                    or not isinstance(sub.slice[0].slice, cst.Index):
                continue
            idx = sub.slice[0].slice.value
            func = self.traced(idx, conversion="numpy")
            if func is None:
                continue
            yield self.report(sub, (
                f"indexing the NumPy array `{self.source(sub.value)}` with traced value "
                f"`{self.source(idx)}` raises TracerArrayConversionError {self.where(func)}: NumPy "
                f"needs a concrete index; make it a JAX array (jnp.asarray(...)[i])"), func)

    def _scipy(self, call: cst.Call, q: str):
        position, keyword = SCIPY_NUMPY_ARGUMENTS[q]
        if any(a.star for a in call.args):
            return
        positional = [a.value for a in call.args if a.keyword is None]
        named = [a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword]
        arg = named[0] if named else positional[position] if position < len(positional) else None
        func = self.traced(arg, conversion="numpy") if arg is not None else None
        if func is None:
            return
        yield self.report(call, (
            f"`{self.source(call.func)}()` converts `{keyword}` with NumPy, and `{self.source(arg)}` is "
            f"traced: TracerArrayConversionError {self.where(func)}; SciPy needs concrete data, so "
            f"call it outside the traced function (or use a JAX solver)"), func)
