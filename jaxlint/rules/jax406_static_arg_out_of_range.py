"""JAX406: static_argnums / static_argnames that name no parameter of the jitted function."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint.engine import tracing
from jaxlint.engine.functions import FunctionInfo
from jaxlint.rules.base import Report, Rule

# Only the transforms whose behaviour was measured (jax 0.10.2).
_JIT = "jax.jit"
_PMAP = "jax.pmap"


class StaticArgOutOfRange(Rule):
    code = "JAX406"
    name = "static-arg-out-of-range"
    summary = "static_argnums / static_argnames that name no parameter of the jitted function"
    confirm_kind = "trace-error"
    raises = "ValueError"

    def check(self) -> Iterator[Report]:
        model = self.model
        # Decorators: only the innermost one sees the function's own signature.
        for info in model.functions:
            if info.is_lambda or not info.node.decorators:
                continue
            use = tracing.decorator_transform(model, info.node.decorators[-1].decorator)
            if use is not None:
                yield from self._check(use, self._qualname(use), info, 0, frozenset(), False)
        # Wrapping calls: `jax.jit(f, static_argnums=2)`, through `partial` and bound methods.
        for call in model.nodes(cst.Call):
            use = tracing.wrapper_use(model, call)
            target = tracing.wrapped_target(call) if use is not None else None
            if target is None:
                continue
            found = tracing.resolve_callable(model, target, [use])
            if found is None:
                continue
            info, uses, offset, bound = found
            if len(uses) != 1:  # `jax.jit(jax.vmap(f), ...)`: another wrapper in between
                continue
            yield from self._check(use, model.qualname(call.func), info, offset, bound,
                                   isinstance(target, cst.Call))

    def _qualname(self, use: tracing.TransformUse) -> Optional[str]:
        node = use.node
        if not isinstance(node, cst.Call):
            return None
        q = self.model.qualname(node.func)
        if q in tracing.PARTIAL:
            pos = tracing._positional(node)
            return self.model.qualname(pos[0]) if pos else None
        return q

    def _check(self, use: tracing.TransformUse, qualname: Optional[str], info: FunctionInfo,
               offset: int, bound: frozenset[str], via_partial: bool) -> Iterator[Report]:
        if qualname not in (_JIT, _PMAP):
            return
        if bound - set(info.positional[:offset]):
            # `partial(f, y=1)`: the bound parameter and those after it become keyword-only.
            return
        positional = info.positional[offset:]
        params = set(positional) | set(info.kwonly)
        n = len(positional)
        label = "the lambda" if info.is_lambda else f"`{info.name}`"
        if offset == 0:
            self_first = info.is_method and positional[:1] == ["self"]
            counted = " (`self` counts as index 0)" if self_first else ""
        elif not via_partial:
            counted = " after `self`, which the bound method binds"
        elif info.is_method:
            counted = " after the arguments `partial` binds (and `self`, for a bound method)"
        else:
            counted = " after the arguments `partial` binds"
        for kw, values, by_name in tracing.static_options(use):
            node = use.kwargs[kw]
            where = self.model.function_of(node)
            if by_name:
                if qualname != _JIT or info.kwarg is not None:
                    continue  # `**kwargs` takes any name
                unknown = [v for v in values if v not in params]
                if not unknown:
                    continue
                names = ", ".join(f"'{v}'" for v in unknown)
                msg = (f"{kw} names {names}, which is not a parameter of {label} "
                       f"(parameters: {', '.join(positional + info.kwonly) or 'none'}): "
                       f"jax.jit raises ValueError when it wraps the function (invalid argnames "
                       f"in static_argnames); name an existing parameter")
                yield self.report(node, msg, where)
                continue
            if info.vararg is not None:
                continue  # `*args` takes any index
            if qualname == _JIT:
                bad = [i for i in values if not -n <= i < n]
                raises = "jax.jit raises ValueError when it wraps the function"
            else:
                bad = [i for i in values if i >= n]  # pmap ignores negative indices here
                raises = ("the first call raises ValueError (static_broadcasted_argnums beyond "
                          "the positional arguments)")
            if not bad:
                continue
            idx = ", ".join(str(i) for i in bad)
            if n == 0:
                fix = "remove the option"
            elif n == 1:
                fix = "the only positional parameter has index 0"
            else:
                fix = f"use the parameter's index, from 0 to {n - 1}"
            if qualname == _JIT:
                fix += ", or name it in static_argnames"
            msg = (f"{kw}={idx} names no parameter of {label}, which takes {n} positional "
                   f"parameter{'s' if n != 1 else ''}{counted}: {raises}; {fix}")
            yield self.report(node, msg, where)

