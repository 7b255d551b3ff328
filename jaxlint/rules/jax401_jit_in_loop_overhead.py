"""JAX401: `jax.jit(f)` of a stable function, re-wrapped on every loop iteration."""

from __future__ import annotations

import libcst as cst

from jaxlint.rules import _recompile as rc
from jaxlint.rules.base import Rule


class JitInLoopOverhead(Rule):
    code = "JAX401"
    name = "jit-in-loop-overhead"
    summary = "jax.jit / jax.pmap of a module-level function re-wrapped on every step of a loop: a cache hit, but tens of µs each"
    severity = "warning"
    confirm_kind = "overhead"
    # A cache hit costs tens of microseconds: it matters only in a hot step loop.
    default = False

    def fix(self, report):
        from jaxlint.fixes.recompile import hoist_fix

        return hoist_fix(self.model, report.node)

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            transform = rc.compiling_transform(model, call)
            if transform is None:
                continue
            loop = rc.repeating_loop(model, call)
            if loop is None or rc.inside_traced(model, call) or not rc.repeats_many_times(model, call):
                continue
            target = rc.wrapped_callable(call)
            if target is None or not self._stable(target):
                continue
            uses = rc.call_uses(model, call, rc.bound_name(model, call))
            if not uses or not any(rc.loop_body_contains(loop, use, model) for use in uses):
                continue
            what = self.source(call)
            msg = (f"`{what}` is wrapped again on every loop iteration: JAX's cache is keyed on "
                   f"the function, so it does not recompile, but each call pays the wrapping "
                   f"cost (about 10x a reused jitted call); hoist the {transform.name} out of "
                   f"the loop and reuse the jitted function")
            yield self.report(call, msg, model.function_of(call),
                              transform=transform.name, target=self.source(target))

    def _stable(self, target: cst.BaseExpression) -> bool:
        """A module-level def or an imported function: the same object every time."""
        model = self.model
        if isinstance(target, cst.Name):
            info = model.resolve_function(target)
            if info is not None:
                return info.enclosing is None and info.klass is None
        if isinstance(target, (cst.Name, cst.Attribute)):
            q = model.qualname(target)
            return q is not None and not q.startswith("builtins.")
        return False
