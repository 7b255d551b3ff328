"""JAX803: argnums of grad / value_and_grad / jacrev / jacfwd / hessian that names no parameter."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jaxlint.engine import tracing
from jaxlint.jax_api import ARGNUMS_OF_CALL_POSITIONALS, DIFFERENTIATING
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
    also_raises = ("ValueError",)

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
        yield from self._static_argnums()
        yield from self._short_calls()

    def _short_calls(self) -> Iterator[Report]:
        """A call of the transformed function that passes fewer positional arguments than
        `argnums` (0 when not given) indexes: `df(x=1.0, y=2.0)` with `df = jax.grad(f)`,
        `partial(df, x=x0)(y=y)`, or a parameter a call hands `df` to, called that way.
        JAX counts argnums against the positional arguments of each call, so this one
        raises whatever the function's signature allows."""
        model = self.model
        qualnames = {q: _ARGNUMS[q] for q in ARGNUMS_OF_CALL_POSITIONALS if q in _ARGNUMS}
        positions = {q: _POSITIONS[q] for q in qualnames}
        for app in tf.applications(model, qualnames, positions, _NAMES):
            node = app.options.get("argnums")
            values = tracing._literal_ints(node) if node is not None else (0,)
            if app.unreadable or not values or any(i < 0 for i in values):
                continue
            need = max(values) + 1
            if need > len(app.positional) and app.info.vararg is None:
                continue  # an index no call can fill: reported on `argnums` above
            calls = [(c, c.args, None, None) for c in tf.applied_calls(model, app)]
            calls += [(pc.call, (*pc.partial.args[1:], *pc.call.args), None, pc.partial)
                      for pc in tf.partial_calls(model, app)]
            calls += [(pc.call, pc.arguments, pc, None) for pc in tf.parameter_calls(model, app)]
            diff = _ARGNUMS[app.qualname]
            for call, args, through, partial in calls:
                if any(a.star == "*" for a in args):
                    continue  # `*args` may pass any number
                passed = sum(1 for a in args if a.keyword is None and not a.star)
                if passed >= need or not args:
                    continue  # no argument at all: a stub, short of more than argnums
                spelled = f"`{self.source(app.node)}`"
                if app.decorator:
                    spelled = f"`{app.info.name}` ({spelled})"
                what = "every argument by keyword" if not passed else \
                    f"only {passed} positional argument{'s' if passed > 1 else ''}"
                if through is not None:
                    where = (f"`{through.param}`, which `{self.source(through.site)}` "
                             f"(line {model.line_of(through.site)}) binds to {spelled},")
                elif partial is not None:
                    where = f"`{self.source(partial)}` of {spelled}"
                elif isinstance(call.func, cst.Name) and not app.decorator:
                    where = f"`{call.func.value}` ({spelled})"
                else:
                    where = spelled
                index = node is not None and f"argnums={self.source(node)}" or "argnums=0 (the default)"
                names = ", ".join(f"`{p}`" for p in app.positional[:need])
                msg = (f"this call of {where} passes {what}: {diff.label} differentiates the "
                       f"positional arguments of each call, so {index} needs at least {need} and the "
                       f"call raises {diff.argnums_error}; pass {names or 'the differentiated arguments'} "
                       f"by position")
                yield self.report(call, msg, model.function_of(call), expected=diff.argnums_error,
                                  on_call=True)

    def _static_argnums(self) -> Iterator[Report]:
        """`jax.grad(step, argnums=1)` where `step` is jitted with argument 1 static: grad
        passes a tracer to the static argument, and jit cannot hash it."""
        model = self.model
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            if q not in _ARGNUMS:
                continue
            target = tracing.wrapped_target(call)
            argnums = tracing._kwargs(call, tracing.transform_for(model, q)).get("argnums")
            values = tracing._literal_ints(argnums) if argnums is not None else None
            if target is None or not values:
                continue
            found = _jitted_static(model, target)
            if found is None:
                continue
            info, positional, static, label = found
            hit = [i for i in values if -len(positional) <= i < len(positional) and positional[i] in static]
            if not hit:
                continue
            names = ", ".join(f"`{positional[i]}`" for i in hit)
            yield self.report(argnums, (
                f"argnums={', '.join(map(str, hit))} differentiates {names}, which `{label}` marks "
                f"static: {_ARGNUMS[q].label} passes a tracer there, and calling it raises ValueError "
                f"(Non-hashable static arguments are not supported); differentiate a function "
                f"that is not jitted with that argument static, or drop it from argnums"),
                model.function_of(call), expected="ValueError", on_call=True)


def _jitted_static(model, target: cst.BaseExpression):
    """A jitted function with static parameters: `f` decorated with
    `@partial(jax.jit, static_argnums=...)`, `jax.jit(f, static_argnums=...)`, or a name
    bound once to that. Returns (its info, its positional parameters after any bound
    by `partial` or `self`, the static ones, a label) or None."""
    label = model.module.code_for_node(target)
    if isinstance(target, cst.Name):
        info = model.resolve_function(target)
        if info is not None:
            if info.is_lambda or len(info.node.decorators) != 1:
                return None
            ctxs = [c for c in info.contexts.values() if c.via == "decorator" and "jit" in c.transforms]
            if len(ctxs) != 1 or not ctxs[0].static:
                return None
            return info, info.positional, ctxs[0].static, label
        values = model.assigned_values(target)
        if values is None or len(values) != 1 or not isinstance(values[0], cst.Call):
            return None
        target = values[0]
    if not isinstance(target, cst.Call):
        return None
    use = tracing.wrapper_use(model, target)
    if use is None or use.transform.name != "jit" or tracing.has_unresolved_static(use):
        return None
    inner = tracing.wrapped_target(target)
    found = tracing.resolve_callable(model, inner, []) if inner is not None else None
    if found is None or found[1] or (not found[0].is_lambda and found[0].node.decorators):
        return None
    info, _, offset, _ = found
    static = tracing.static_params(use, info, offset)
    return (info, info.positional[offset:], static, label) if static else None
