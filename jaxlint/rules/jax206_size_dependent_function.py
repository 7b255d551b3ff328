"""JAX206: nonzero / argwhere / unique / one-argument where without `size=`."""

from __future__ import annotations

import libcst as cst

from jaxlint.jax_api import SIZE_DEPENDENT_FUNCTIONS
from jaxlint.rules.base import TracedValueRule


class SizeDependentFunction(TracedValueRule):
    code = "JAX206"
    name = "size-dependent-output"
    summary = "jnp.nonzero / argwhere / unique / where(cond) without size= raise ConcretizationTypeError"
    raises = "ConcretizationTypeError"

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            keywords = {a.keyword.value for a in call.args if a.keyword is not None}
            positional = [a.value for a in call.args if a.keyword is None]
            if q in SIZE_DEPENDENT_FUNCTIONS:
                name = "jnp." + q.rsplit(".", 1)[1]
                needs = SIZE_DEPENDENT_FUNCTIONS[q]
            elif q == "jax.numpy.where" and len(call.args) == 1 and not keywords:
                name, needs = "jnp.where(cond)", "size"
            elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "nonzero" and q is None \
                    and model.value(call.func.value).traced:
                name, needs = ".nonzero()", "size"
                positional = [call.func.value]
            else:
                continue
            if needs in keywords or not positional:
                continue
            arg = positional[0]
            func = self.traced(arg)
            if func is None:
                continue
            yield self.report(call, (
                f"`{name}` on traced value `{self.source(arg)}` has a data-dependent output size and "
                f"raises ConcretizationTypeError {self.where(func)}; pass {needs}=N (and fill_value=) "
                f"for a fixed-size result, or use jnp.where(cond, x, y)"), func)
