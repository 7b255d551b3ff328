"""JAX206: nonzero / argwhere / unique / one-argument where without `size=`, segment_sum
without `num_segments=`, bincount without `length=`."""

from __future__ import annotations

import libcst as cst

from jaxlint.jax_api import SIZE_DEPENDENT_FUNCTIONS, SizeArgument
from jaxlint.rules.base import TracedValueRule


class SizeDependentFunction(TracedValueRule):
    code = "JAX206"
    name = "size-dependent-output"
    summary = ("jnp.nonzero / argwhere / unique / where(cond) without size=, segment_sum without "
               "num_segments=, bincount without length= raise ConcretizationTypeError")
    raises = "ConcretizationTypeError"

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            keywords = {a.keyword.value for a in call.args if a.keyword is not None}
            positional = [a.value for a in call.args if a.keyword is None]
            spec = SIZE_DEPENDENT_FUNCTIONS.get(q) if q else None
            if spec is not None:
                name = ("jnp." if q.startswith("jax.numpy.") else "jax.ops.") + q.rsplit(".", 1)[1]
            elif q == "jax.numpy.where" and len(call.args) == 1 and not keywords:
                name, spec = "jnp.where(cond)", SizeArgument("size")
            elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "nonzero" and q is None \
                    and model.value(call.func.value).traced:
                name, spec = ".nonzero()", SizeArgument("size")
                positional = [call.func.value]
            else:
                continue
            if spec.keyword in keywords or any(a.star for a in call.args):
                continue
            if spec.position is not None and len(positional) > spec.position:
                continue  # the size given by position
            if len(positional) <= spec.data:
                continue
            arg = positional[spec.data]
            func = self.traced(arg)
            if func is None:
                continue
            fix = f"pass {spec.keyword}=N"
            if spec.keyword == "size":
                fix += " (and fill_value=) for a fixed-size result, or use jnp.where(cond, x, y)"
            elif spec.not_enough:
                fix += f" (a static int; {spec.not_enough}= does not fix the size)"
            else:
                fix += " (a static int)"
            yield self.report(call, (
                f"`{name}` on traced value `{self.source(arg)}` has a data-dependent output size and "
                f"raises ConcretizationTypeError {self.where(func)}; {fix}"), func)
