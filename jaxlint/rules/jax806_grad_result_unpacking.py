"""JAX806: the result of value_and_grad / grad(has_aux=True) unpacked into the wrong shape."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint.jax_api import DIFFERENTIATING
from jaxlint.rules import _transforms as tf
from jaxlint.rules.base import Report, Rule

_GRADS = {q: d for q, d in DIFFERENTIATING.items() if d.scalar_output}
_POSITIONS = {q: (d.argnums_position, d.has_aux_position) for q, d in _GRADS.items()}
_NAMES = ("argnums", "has_aux")


class GradResultUnpacking(Rule):
    code = "JAX806"
    name = "grad-result-unpacking"
    summary = ("value_and_grad / grad(has_aux=True) results unpacked into the wrong shape: "
               "`loss, aux, grads = ...` raises ValueError, `(loss, aux), grads = ...` without "
               "has_aux raises TypeError")
    confirm_kind = "trace-error"
    raises = "ValueError"
    also_raises = ("TypeError",)

    def check(self) -> Iterator[Report]:
        for app in tf.applications(self.model, _GRADS, _POSITIONS, _NAMES):
            yield from self._unpackings(app, None)
        reported = set()
        for app, site in tf.applications_at_call_sites(self.model, _GRADS, _POSITIONS, _NAMES):
            for report in self._unpackings(app, site):
                if report.node not in reported:  # one finding per unpacking, from its first failing call
                    reported.add(report.node)
                    yield report

    def _unpackings(self, app: tf.Applied, site: Optional[cst.Call]) -> Iterator[Report]:
        """`site`: the call of the wrapper that hands the function (and options) in."""
        model = self.model
        diff = _GRADS[app.qualname]
        has_aux = tf.literal_bool(app.options["has_aux"]) if "has_aux" in app.options else False
        if has_aux is None or app.unreadable or not (diff.returns_value or has_aux):
            return
        if diff.returns_value:
            shape = "`((value, aux), grads)`" if has_aux else "`(value, grads)`"
        else:
            shape = "`(grads, aux)`"
        if tf.output_fails(model, app, has_aux):
            return  # the call itself raises first (JAX801 / JAX802)
        returns = tf.return_values(app.info) or []
        singles = bool(returns) and all(r is not None and tf.single_value(model, r) for r in returns)
        label = f"{diff.label}({app.info.name}{', has_aux=True' if has_aux else ''})"
        origin = "" if site is None else f" (from the call on line {model.line_of(site)})"
        for call in tf.applied_calls(model, app):
            target = _unpacked_into(model, call)
            if target is None:
                continue
            names = self.source(target)
            if len(target.elements) != 2:
                n = len(target.elements)
                yield self.report(call, (
                    f"`{label}`{origin} returns a pair, {shape}, but `{names}` "
                    f"unpacks it into {n} names: it raises ValueError ("
                    f"{'not enough' if n > 2 else 'too many'} values to unpack (expected {n}, "
                    f"got 2)); unpack {shape}"
                    + ("" if has_aux else ", and pass has_aux=True if the function also returns "
                                          "auxiliary data")),
                    model.function_of(call), expected="ValueError")
                break
            first = target.elements[0].value
            # The value is a scalar only when the function is known to return one.
            if diff.returns_value and not has_aux and singles and isinstance(first, (cst.Tuple, cst.List)):
                yield self.report(call, (
                    f"`{label}`{origin} without has_aux returns `(value, grads)` "
                    f"with a scalar value, but `{names}` unpacks the value into "
                    f"`{self.source(first)}`: it raises TypeError (iteration over a 0-d array); "
                    f"pass has_aux=True and return `(loss, aux)` from `{app.info.name}`, or "
                    f"unpack `loss, grads`"), model.function_of(call), expected="TypeError")
                break


def _unpacked_into(model, call: cst.Call) -> Optional[cst.BaseExpression]:
    """The tuple / list target of `a, b = call`, when it has no starred element."""
    stmt = model.parent(call)
    if not isinstance(stmt, cst.Assign) or stmt.value is not call or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)) \
            or any(isinstance(el, cst.StarredElement) for el in target.elements):
        return None
    return target
