"""JAX802: has_aux=True, but the function does not return a `(value, aux)` pair."""

from __future__ import annotations

from typing import Iterator

from jaxlint.jax_api import DIFFERENTIATING
from jaxlint.rules import _transforms as tf
from jaxlint.rules.base import Report, Rule

_AUX = {q: d for q, d in DIFFERENTIATING.items() if d.aux_single_error}
_POSITIONS = {q: (d.argnums_position, d.has_aux_position) for q, d in _AUX.items()}
_NAMES = ("argnums", "has_aux")


class HasAuxNotPair(Rule):
    code = "JAX802"
    name = "has-aux-not-pair"
    summary = "has_aux=True, but the function returns a single value or a tuple that is not a pair"
    confirm_kind = "trace-error"
    raises = "TypeError"

    def check(self) -> Iterator[Report]:
        model = self.model
        for app in tf.applications(model, _AUX, _POSITIONS, _NAMES):
            if tf.literal_bool(app.options.get("has_aux")) is not True:
                continue
            diff = _AUX[app.qualname]
            returns = tf.return_values(app.info)
            if not returns:
                continue
            found = [tf.not_a_pair(model, r, app.info) for r in returns]
            if any(f is None for f in found):
                continue  # one return may be a pair
            single = all(kind == "a single value" for kind, _ in found)
            error = diff.aux_single_error if single else (
                diff.aux_length_error if all(k != "a dict" for k, _ in found) else diff.aux_single_error)
            kinds = " or ".join(sorted({k for k, _ in found}))
            shown = self.source(found[0][1])
            msg = (f"{diff.label}(..., has_aux=True) expects {app.label} to return a pair "
                   f"`(value, aux)`, but it returns {kinds} (`{shown}`): calling the result "
                   f"raises {error}")
            if diff.label.startswith("nnx."):
                msg += " while unpacking the pair"
            else:
                msg += " (expected function with aux output to return a two-element tuple)"
            msg += ("; return `(loss, aux)`, or drop has_aux=True" if single else
                    "; group the auxiliary outputs into one: `return loss, (a, b)`")
            yield self.report(app.node, msg, model.function_of(app.node), expected=error,
                              on_call=True)
