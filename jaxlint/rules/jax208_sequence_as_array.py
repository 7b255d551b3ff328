"""JAX208: a Python list or tuple where a jax.numpy function takes an array: TypeError."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint.jax_api import SEQUENCE_REJECTING_FUNCTIONS
from jaxlint.rules.base import Report, Rule

_DISPLAYS = {cst.List: "a list", cst.ListComp: "a list", cst.Tuple: "a tuple"}
_BUILTINS = {"builtins.list": "a list", "builtins.tuple": "a tuple", "builtins.sorted": "a list"}


class SequenceAsArray(Rule):
    code = "JAX208"
    name = "sequence-as-array"
    summary = "a Python list or tuple passed to jnp.sum / jnp.mean / jnp.dot / ... raises TypeError"
    confirm_kind = "trace-error"
    raises = "TypeError"

    def check(self) -> Iterator[Report]:
        model = self.model
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            positions = SEQUENCE_REJECTING_FUNCTIONS.get(q) if q else None
            if positions is None:
                continue
            positional = []
            for arg in call.args:
                if arg.star:
                    break  # `f(*args)`: the positions after it are unknown
                if arg.keyword is None:
                    positional.append(arg.value)
            for position in positions:
                if position >= len(positional):
                    break
                arg = positional[position]
                kind = self._sequence(arg)
                if kind is None:
                    continue
                name = q.rsplit(".", 1)[1]
                yield self.report(arg, (
                    f"`{self.source(call.func)}` gets {kind} at position {position} and raises TypeError "
                    f"({name} requires ndarray or scalar arguments): JAX does not convert Python "
                    f"sequences as NumPy does; convert it first with jnp.asarray(...), or "
                    f"jnp.stack(...) for a sequence of arrays"), model.function_of(call))
                break

    def _sequence(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[str]:
        """"a list" / "a tuple" when `expr` is one for certain: a display, a list
        comprehension, `list(...)`, or a name only ever bound to one of those."""
        model = self.model
        for t, kind in _DISPLAYS.items():
            if isinstance(expr, t):
                return kind
        if isinstance(expr, cst.Call):
            return _BUILTINS.get(model.qualname(expr.func))
        if isinstance(expr, cst.Name) and depth == 0:
            kinds = {self._sequence(v, depth + 1) for v in model.assigned_values(expr) or ()}
            if len(kinds) == 1:
                return kinds.pop()
        return None
