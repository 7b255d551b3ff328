"""JAX204: NumPy functions applied to traced values."""

from __future__ import annotations

import libcst as cst

from jaxlint.jax_api import NUMPY_TRACER_SAFE
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
