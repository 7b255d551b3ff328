"""JAX803: argnums of grad / value_and_grad / jacrev / jacfwd / hessian that names no parameter."""

from __future__ import annotations

from typing import Iterator

from jaxlint.engine import tracing
from jaxlint.jax_api import DIFFERENTIATING
from jaxlint.rules import _transforms as tf
from jaxlint.rules.base import Report, Rule

_ARGNUMS = {q: d for q, d in DIFFERENTIATING.items() if d.has_argnums}
_POSITIONS = {q: (d.argnums_position, d.has_aux_position) for q, d in _ARGNUMS.items()}
_NAMES = ("argnums", "has_aux")


class ArgnumsOutOfRange(Rule):
    code = "JAX803"
    name = "argnums-out-of-range"
    summary = ("argnums of grad / value_and_grad / jacrev / jacfwd / hessian beyond the "
               "function's positional parameters")
    confirm_kind = "trace-error"
    raises = "TypeError"

    def check(self) -> Iterator[Report]:
        model = self.model
        for app in tf.applications(model, _ARGNUMS, _POSITIONS, _NAMES):
            node = app.options.get("argnums")
            if node is None:
                continue
            values = tracing._literal_ints(node)
            info = app.info
            if values is None or info.vararg is not None:
                continue  # `*args` takes any index
            if app.bound - set(info.positional[:app.offset]):
                continue  # `partial(f, y=1)`: `y` and the parameters after it are keyword-only
            diff = _ARGNUMS[app.qualname]
            positional = app.positional
            n = len(positional)
            high = [i for i in values if i >= n]
            low = [i for i in values if i < -n]
            if not high and not low:
                continue
            # Past the end: grad and value_and_grad raise TypeError, the jac* ValueError;
            # below -n every one raises ValueError (jax 0.10.2).
            error = diff.argnums_error if high else "ValueError"
            idx = ", ".join(str(i) for i in high + low)
            if app.decorator and info.is_method and positional[:1] == ["self"]:
                counted = " (`self` counts as index 0)"
            elif app.offset and app.via_partial:
                counted = " after the arguments `partial` binds"
            elif app.offset:
                counted = " after `self`, which the bound method binds"
            else:
                counted = ""
            names = ", ".join(f"`{p}`" for p in positional) or "none"
            kwonly = [p for p in info.kwonly if p not in app.bound]
            hint = (f"; keyword-only parameters ({', '.join(kwonly)}) cannot be differentiated "
                    f"by argnums: make them positional" if kwonly else "")
            msg = (f"argnums={idx} names no positional parameter of {app.label}, which takes "
                   f"{n} ({names}){counted}: calling the result of {diff.label} raises {error}; "
                   f"{'the only positional parameter has index 0' if n == 1 else f'use an index from 0 to {n - 1}'}" if n else
                   f"argnums={idx} names no positional parameter of {app.label}, which takes "
                   f"none: calling the result of {diff.label} raises {error}")
            yield self.report(node, msg + hint, model.function_of(app.node), expected=error,
                              on_call=True)
