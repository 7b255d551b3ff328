"""JAX801: jax.grad / value_and_grad of a function that returns a tuple, list or dict."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jaxlint.jax_api import DIFFERENTIATING
from jaxlint.rules import _transforms as tf
from jaxlint.rules.base import Report, Rule

_SCALAR_OUTPUT = {q: d for q, d in DIFFERENTIATING.items() if d.scalar_output}
_POSITIONS = {q: (d.argnums_position, d.has_aux_position) for q, d in _SCALAR_OUTPUT.items()}
_NAMES = ("argnums", "has_aux")


class GradOfNonScalar(Rule):
    code = "JAX801"
    name = "grad-of-non-scalar"
    summary = ("jax.grad / value_and_grad of a function returning a tuple, list or dict "
               "without has_aux=True raises TypeError")
    raises = "TypeError"

    def check(self) -> Iterator[Report]:
        model = self.model
        for app in tf.applications(model, _SCALAR_OUTPUT, _POSITIONS, _NAMES):
            diff = _SCALAR_OUTPUT[app.qualname]
            if "has_aux" in app.options:
                # has_aux=True: the output is (value, aux), JAX802's business; a
                # variable flag is unknown.
                if tf.literal_bool(app.options["has_aux"]) is not False:
                    continue
            elif app.unreadable:
                continue
            returns = tf.return_values(app.info)
            if not returns:
                continue
            found = [tf.container_literal(model, r, app.info) for r in returns]
            if any(c is None for c in found):
                continue  # one return may give a scalar: nothing is certain
            kinds = sorted({c.kind for c in found})
            what = " or ".join(kinds)
            pairs = all(c.kind == "a tuple" and c.length == 2 for c in found)
            if pairs:
                fix = (f"if it is (value, auxiliary data), pass has_aux=True (then {diff.label} "
                       f"returns the auxiliary data too)")
            else:
                fix = ("return a scalar (jnp.sum / .mean() of the part to differentiate), "
                       "pass has_aux=True and return `(scalar, aux)`, or use jax.jacrev for "
                       "the Jacobian of every output")
            shown = self.source(found[0].node)
            if isinstance(found[0].node, cst.Tuple) and not found[0].node.lpar:
                shown = f"({shown})"
            msg = (f"{app.label} returns {what} (`{shown}`), and {diff.label} differentiates only "
                   f"scalar-output functions: calling the result raises TypeError (Gradient "
                   f"only defined for scalar-output functions); {fix}")
            yield self.report(app.node, msg, model.function_of(app.node))
