"""JAX202: `int()` / `float()` / `complex()` / `.item()` / `.tolist()` on a traced value."""

from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import TracedValueRule

_CONVERSIONS = {"builtins.int": "int()", "builtins.float": "float()", "builtins.complex": "complex()"}
_ASTYPE = {"builtins.int": "jnp.int32", "builtins.float": "jnp.float32", "builtins.complex": "jnp.complex64"}


class TracedConcretization(TracedValueRule):
    code = "JAX202"
    name = "traced-concretization"
    summary = "int() / float() / .item() / .tolist() on a traced value raises ConcretizationTypeError"
    raises = "ConcretizationTypeError"

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            if q in _CONVERSIONS and call.args:
                arg = call.args[0].value
                func = self.traced(arg, conversion=q)
                if func is not None:
                    yield self.report(call, (
                        f"`{_CONVERSIONS[q]}` on traced value `{self.source(arg)}` raises "
                        f"ConcretizationTypeError {self.where(func)}; keep it an array "
                        f"(`{self.source(arg)}.astype({_ASTYPE[q]})`), or use jax.debug.print to see it"
                        f"{self.static_hint(func, arg)}"), func)
            elif isinstance(call.func, cst.Attribute) and call.func.attr.value in ("item", "tolist") \
                    and not call.args:
                base = call.func.value
                func = self.traced(base, conversion=call.func.attr.value)
                if func is not None:
                    meth = call.func.attr.value
                    yield self.report(call, (
                        f"`.{meth}()` on traced value `{self.source(base)}` raises "
                        f"ConcretizationTypeError {self.where(func)}; return the array and convert "
                        f"outside the traced function, or use jax.debug.print to see it"), func)
