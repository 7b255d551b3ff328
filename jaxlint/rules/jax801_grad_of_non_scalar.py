"""JAX801: jax.grad / value_and_grad of a function that returns a tuple, list or dict."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint.jax_api import DIFFERENTIATING, ELEMENTWISE_FUNCTIONS
from jaxlint.rules import _known_arrays as ka
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
    confirm_kind = "trace-error"
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
                # One return may give a scalar; an elementwise one gives the shape of
                # its arguments, which a call may state (`jnp.array([1., 2.])`).
                yield from self._array_outputs(app, diff, returns)
                continue
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
            yield self.report(app.node, msg, model.function_of(app.node), on_call=True)

    def _array_outputs(self, app: tf.Applied, diff, returns) -> Iterator[Report]:
        """`jax.grad(lambda x: x ** 2)(jnp.array([1., 2.]))`: every return is elementwise
        in the parameters, and the call passes one of them an array of rank 1 or more."""
        model = self.model
        info = app.info
        used: set[str] = set()
        if app.offset or app.bound or any(r is None or not _elementwise(model, r, set(info.all_params), used)
                                          for r in returns):
            return
        params = info.positional
        for call in tf.applied_calls(model, app):
            if any(a.star for a in call.args):
                continue
            for i, a in enumerate(call.args):
                name = a.keyword.value if a.keyword is not None else (params[i] if i < len(params) else None)
                if name not in used:
                    continue
                rank = _rank(model, a.value)
                if rank:
                    yield self.report(call, (
                        f"`{self.source(call)}` differentiates `{info.name}`, whose output has the "
                        f"shape of `{self.source(a.value)}` (rank {rank}), and {diff.label} "
                        f"differentiates only scalar-output functions: it raises TypeError (Gradient "
                        f"only defined for scalar-output functions); reduce the output (jnp.sum / "
                        f".mean()), map a scalar function with jax.vmap({diff.label}(f)), or use "
                        f"jax.jacrev for the Jacobian"), model.function_of(call))
                    break


def _elementwise(model, expr: cst.BaseExpression, params: set[str], used: set[str]) -> bool:
    """`expr` is built from the parameters and numbers by elementwise operations only."""
    if isinstance(expr, cst.Name):
        if expr.value in params:
            used.add(expr.value)
            return True
        return False
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return _elementwise(model, expr.expression, params, used)
    if isinstance(expr, cst.BinaryOperation) and not isinstance(expr.operator, cst.MatrixMultiply):
        return _elementwise(model, expr.left, params, used) and _elementwise(model, expr.right, params, used)
    if isinstance(expr, cst.Call) and model.qualname(expr.func) in ELEMENTWISE_FUNCTIONS:
        return bool(expr.args) and all(a.keyword is None and not a.star
                                       and _elementwise(model, a.value, params, used) for a in expr.args)
    return False


def _rank(model, expr: cst.BaseExpression) -> Optional[int]:
    rank = tf.known_rank(model, expr)
    if rank is None:
        shape = ka.known_shape(model, expr)
        rank = len(shape) if shape is not None else None
    return rank
