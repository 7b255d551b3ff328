"""JAX403: a static argument that takes a new value on every loop iteration."""

from __future__ import annotations


from jaxlint.rules import _recompile as rc
from jaxlint.rules.base import Rule


class ChangingStaticArg(Rule):
    code = "JAX403"
    name = "changing-static-arg"
    summary = "a static argument of a jitted function gets a new value on every loop iteration"
    confirm_kind = "recompile"

    def check(self):
        model = self.model
        for call, loop, callee in rc.jitted_calls_in_loops(model):
            if not callee.static:
                continue
            varying = None
            for param, arg in callee.bind(call):
                if param not in callee.static:
                    continue
                if varying is None:
                    varying = _varying_in_scope(model, call, loop)
                if rc.varies(model, arg, varying):
                    msg = (f"static argument `{param}` of `{callee.label}` gets `{self.source(arg)}`, "
                           f"a new value on every loop iteration: JAX compiles `{callee.function.name}` "
                           f"again for each distinct value; pass `{param}` as a traced argument "
                           f"(drop it from static_argnums / static_argnames) or keep it constant")
                    yield self.report(arg, msg, model.function_of(call), static_arg=param,
                                      fun_name=f"{callee.context.transforms[0]}({callee.function.name})")


def _varying_in_scope(model, call, loop) -> set[str]:
    """Names that change on most calls: per iteration of `loop`, or of a loop around
    it while the loops in between are short. A name that changes once per epoch,
    around a loop of many steps, compiles once per epoch and is reused for the rest."""
    names: set[str] = set()
    cur = loop
    while cur is not None:
        names |= rc.varying_names(model, cur)
        if not rc.short_loop(model, cur):
            break
        cur = rc.repeating_loop(model, cur)
    return names
