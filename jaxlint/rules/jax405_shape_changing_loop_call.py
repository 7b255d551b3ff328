"""JAX405: a jitted function called in a loop on a slice whose length changes each time."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.model import children
from jaxlint.engine.sizes import element_lengths

from jaxlint.rules import _recompile as rc
from jaxlint.rules.base import Rule
from jaxlint.rules.jax403_changing_static_arg import _varying_in_scope


class ShapeChangingLoopCall(Rule):
    code = "JAX405"
    name = "shape-changing-loop-call"
    summary = "a jitted function called in a loop on slices whose length changes every iteration"
    confirm_kind = "recompile"

    def check(self):
        model = self.model
        for call, loop, callee in rc.jitted_calls_in_loops(model):
            varying = None
            for param, arg in callee.bind(call):
                if param in callee.static:
                    continue
                if varying is None:
                    varying = _varying_in_scope(model, call, loop)
                sliced = self._growing_slice(arg, varying, loop)
                lengths = self._lengths_per_pass(arg, loop) if sliced is None else None
                if sliced is None and lengths is None:
                    continue
                if sliced is not None:
                    what = f"`{self.source(sliced)}`, whose length changes on every loop iteration"
                else:
                    shown = ", ".join(map(str, lengths[:4])) + (", ..." if len(lengths) > 4 else "")
                    what = (f"`{self.source(arg)}`, an array of a new length on each of the loop's "
                            f"{len(lengths)} iterations ({shown})")
                msg = (f"`{callee.label}` gets {what}: jit compiles `{callee.function.name}` again "
                       f"for each new shape; pad to a fixed length and mask, or take fixed-size windows "
                       f"(lax.dynamic_slice), or loop inside jit with lax.fori_loop")
                yield self.report(arg, msg, model.function_of(call), arg=param,
                                  fun_name=f"{callee.context.transforms[0]}({callee.function.name})")
                break  # one finding per call: the other slices change with the same index

    def _lengths_per_pass(self, arg, loop) -> Optional[list[int]]:
        """The lengths `arg`, a target of `for x in items` (or `for x, y in pairs`), takes
        on each pass, where the code states how each item is built; only when every pass
        gets a new one (and there are more than two)."""
        if not isinstance(arg, cst.Name) or not isinstance(loop, cst.For):
            return None
        target, position = loop.target, None
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [el.value for el in target.elements]
            position = next((i for i, n in enumerate(names) if isinstance(n, cst.Name) and n.value == arg.value), None)
            if position is None or any(isinstance(el, cst.StarredElement) for el in target.elements):
                return None
        elif not (isinstance(target, cst.Name) and target.value == arg.value):
            return None
        if any(isinstance(n, cst.Name) and n.value == arg.value
               for stmt in rc._statements(loop.body) if isinstance(stmt, (cst.Assign, cst.AugAssign, cst.AnnAssign))
               for t in (stmt.targets if isinstance(stmt, cst.Assign) else [stmt])
               for n in [t.target]):
            return None  # rebound in the body
        lengths = element_lengths(self.model, loop.iter, position)
        if lengths is None or len(lengths) <= 2 or len(set(lengths)) != len(lengths):
            return None
        return lengths

    def _growing_slice(self, arg, varying: set[str], loop) -> Optional[cst.Subscript]:
        """`x[:i]`, `x[i:]`, `x[:, :i + 1]`, or a name assigned one in the loop body."""
        if isinstance(arg, cst.Name):
            assigned = _assigned_in(self.model, loop, arg.value)
            return self._growing_slice(assigned, varying, loop) if assigned is not None \
                and not isinstance(assigned, cst.Name) else None
        if not isinstance(arg, cst.Subscript):
            return None
        for el in arg.slice:
            s = el.slice
            if not isinstance(s, cst.Slice) or s.step is not None:
                continue
            lower = s.lower is not None and rc.varies(self.model, s.lower, varying)
            upper = s.upper is not None and rc.varies(self.model, s.upper, varying)
            # Both bounds moving (`x[i:i + 4]`) is a fixed-size window.
            if lower != upper and not _mentions(s.lower if upper else s.upper, varying):
                return arg
        return None


def _assigned_in(model, loop, name: str) -> Optional[cst.BaseExpression]:
    """The value of the only `name = ...` in the loop body, if there is exactly one."""
    found = None
    for stmt in rc._statements(loop.body) if isinstance(loop, (cst.For, cst.While)) else ():
        if isinstance(stmt, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
            if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                if found is not None or not isinstance(stmt, cst.Assign) or len(targets) != 1:
                    return None
                found = stmt.value
    return found


def _mentions(expr, names: set[str]) -> bool:
    if expr is None:
        return False
    if isinstance(expr, cst.Name):
        return expr.value in names
    return any(_mentions(c, names) for c in children(expr))
