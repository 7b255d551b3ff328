"""JAX403: a static argument that takes a new value on every loop iteration."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.counters import counter_field, counter_step, integer_array
from jaxlint.engine.static_parts import counted_fields, fresh_object, static_parts
from jaxlint.engine.values import Shape
from jaxlint.rules import _recompile as rc
from jaxlint.rules.base import Rule


class ChangingStaticArg(Rule):
    code = "JAX403"
    name = "changing-static-arg"
    summary = "a static argument of a jitted function gets a new value on every loop iteration"
    confirm_kind = "recompile"

    def check(self):
        model = self.model
        if not _takes_pytree_classes(model) and not any(
                c.cached and (c.static or c.arrays_only) for info in model.functions for c in info.contexts.values()):
            yield from self._counted_exponents()
            return  # no jitted function here has a static part to churn
        for call, loop, callee in rc.jitted_calls_in_loops(model):
            arrays_only = callee.context.arrays_only
            if not callee.static and not arrays_only and not _takes_pytree_classes(model):
                continue
            varying = None
            for param, arg in callee.bind(call):
                static = param in callee.static
                if static:
                    if varying is None:
                        varying = _varying_in_scope(model, call, loop)
                    if rc.varies(model, arg, varying):
                        msg = (f"static argument `{param}` of `{callee.label}` gets `{self.source(arg)}`, "
                               f"a new value on every loop iteration: JAX compiles `{callee.function.name}` "
                               f"again for each distinct value; pass `{param}` as a traced argument "
                               f"(drop it from static_argnums / static_argnames) or keep it constant")
                        yield self.report(arg, msg, model.function_of(call), static_arg=param,
                                          fun_name=_fun_name(callee))
                        continue
                if _only_short_loops(model, loop):
                    continue  # a handful of deliberate settings compile once each
                counted = _counted_back(model, call, loop, callee, arg)
                if counted is not None:
                    msg = (f"field `{counted}` in argument `{param}` of `{callee.label}` is static, and "
                           f"`{callee.function.name}` returns it counted up; passed back in, it is a new "
                           f"value on every loop iteration, so JAX compiles `{callee.function.name}` again "
                           f"each time: make the counter an array field (traced) or keep it outside")
                    yield self.report(arg, msg, model.function_of(call), static_arg=param,
                                      fun_name=_fun_name(callee))
                    continue
                new = _new_static_part(model, arg, call, loop, static, arrays_only)
                if new is not None:
                    part, value, fresh = new
                    where = _where(part, param, static, callee)
                    what = fresh or "a new value"
                    fix = "make it once, before the loop" if fresh else \
                        "make it traced (an array field or argument) or keep it constant"
                    msg = (f"{where} of `{callee.label}` gets `{self.source(value)}`, {what} on every "
                           f"loop iteration; static values are part of the compile cache key (compared "
                           f"with ==), so JAX compiles `{callee.function.name}` again each time: {fix}")
                    yield self.report(arg, msg, model.function_of(call), static_arg=param,
                                      fun_name=_fun_name(callee))
        yield from self._counted_exponents()
        for call, owner, callee in rc.jitted_calls_per_run(model):
            if not callee.static and not callee.context.arrays_only and not _takes_pytree_classes(model):
                continue
            found = _made_each_call(model, call, owner, callee)
            if found is None:
                continue
            param, arg, part, value, fresh = found
            where = _where(part, param, param in callee.static, callee)
            msg = (f"{where} of `{callee.label}` gets `{self.source(value)}`, {fresh} on every call "
                   f"of `{owner.name}`, which a loop calls: static values are part of the compile cache "
                   f"key (compared with ==), so JAX compiles `{callee.function.name}` again each time; "
                   f"make it once, outside `{owner.name}`")
            yield self.report(arg, msg, owner, static_arg=param,
                              fun_name=_fun_name(callee))


    def _counted_exponents(self):
        """`decay ** count` run outside jit, where `count` is an integer JAX array that a
        loop counts up: a concrete integer exponent becomes `integer_pow`'s static exponent,
        one compile per value (jax 0.10.2: `Compiling jit(integer_pow)` on every step)."""
        model = self.model
        if not model.classes:
            return  # the counter lives in a field of a state class of this file
        repeated = None
        for node, exponent in _powers(model):
            step = counter_step(model, exponent)
            if step is None or not integer_array(model, step):
                continue
            if repeated is None:
                repeated = rc.repeated_functions(model)
            owner = model.function_of(node)
            if rc.repeating_loop(model, node) is None and owner not in repeated:
                continue
            if not rc.runs_eagerly(model, node):
                continue
            loop_call = _advanced_by_loop(model, step)
            if loop_call is None:
                continue
            field = counter_field(step)
            yield self.report(node, (
                f"`{self.source(node)}` runs outside jit with `{self.source(exponent)}` a concrete "
                f"integer JAX array, the counter `{field}` that the loop at line "
                f"{model.line_of(loop_call)} advances: JAX turns a concrete integer exponent into "
                f"`integer_pow`'s static exponent and compiles it again for each new value, once per "
                f"step; cast the exponent to a float (`{self.source(exponent)}.astype(jnp.float32)`) "
                f"or run the update under jax.jit"), owner, fun_name="jit(integer_pow)")


def _powers(model):
    """(expression, exponent) of each `a ** b` and `jnp.power(a, b)`."""
    for node in model.nodes(cst.BinaryOperation):
        if isinstance(node.operator, cst.Power):
            yield node, node.right
    for call in model.nodes(cst.Call):
        if model.qualname(call.func) == "jax.numpy.power" and len(call.args) == 2 \
                and all(a.keyword is None and not a.star for a in call.args):
            yield call, call.args[1].value


def _advanced_by_loop(model, step: cst.BinaryOperation):
    """The call, on every pass of a loop, of the function holding `s.count + 1` that binds
    back the name it passes for `s` from what the function returns there: a state whose
    `count` is that step (`updates, state = update(grads, state)`)."""
    from jaxlint.engine.callees import argument_for, call_sites

    holder = model.function_of(step)
    side = step.left if isinstance(step.left, cst.Attribute) else step.right
    if holder is None or not isinstance(side.value, cst.Name) or side.value.value not in holder.positional:
        return None
    field = side.attr.value
    sites = call_sites(model, holder)
    known = {call for call, _ in sites}
    # `init_fn, update_fn = scale_by_adam()`, then `update_fn(...)`: the nested def a factory returns.
    sites += [(call, 0) for call in rc.calls_by_callee(model).get(holder, ())
              if call not in known and isinstance(call.func, cst.Name)]
    for call, shift in sites:
        if rc.repeating_loop(model, call) is None:
            continue
        arg = argument_for(call, holder, side.value.value, shift)
        statement = model.parent(call)
        if not isinstance(arg, cst.Name) or not isinstance(statement, cst.Assign) \
                or len(statement.targets) != 1:
            continue
        positions = _rebound_at(statement.targets[0].target, arg.value)
        for position in positions:
            for returned in model.returned_expressions(holder, position) or ():
                if isinstance(returned, cst.Call) and _stores_step(model, returned, field, step):
                    return call
    return None


def _stores_step(model, call: cst.Call, field: str, step) -> bool:
    """`State(count=count_inc, ...)` or `s._replace(count=...)` with the counter's step."""
    values = [a.value for a in call.args if a.keyword is not None and a.keyword.value == field]
    klass = model.resolve_class(call.func)
    if not values and klass is not None and klass.fields and field in klass.fields:
        index = list(klass.fields).index(field)
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        values = positional[index:index + 1]
    return any(counter_step(model, v) is step for v in values)


def _fun_name(callee) -> str:
    """`jit(step)`: the compiled function, as confirm's compile watch names it."""
    return f"{callee.context.transforms[0]}({callee.function.name})"


def _where(part: str, param: str, static: bool, callee) -> str:
    if part:
        return f"{part} in argument `{param}`"
    if static:
        return f"static argument `{param}`"
    return f"argument `{param}` (not an array: static under {callee.context.transforms[0]})"


def _made_each_call(model, call, owner, callee):
    """(parameter, argument, part, value, what) for a static part that `owner`, a function
    a loop calls on each pass, makes as a new object on each of its runs."""
    if not isinstance(owner.node, cst.FunctionDef):
        return None
    arrays_only = callee.context.arrays_only
    for param, arg in callee.bind(call):
        values = [arg]
        if isinstance(arg, cst.Name):
            values += rc.assigned_each_run(model, arg, call, owner.node)
        for made in values:
            for part, value in static_parts(model, made, param in callee.static, arrays_only):
                fresh = fresh_object(model, value)
                if fresh is not None:
                    return param, arg, part, value, fresh
    return None


def _new_static_part(model, arg, call, loop, static: bool, arrays_only: bool):
    """(what part, its value, what new object or "") for a static part of `arg` (the
    argument itself, or a static field of a pytree it constructs) that the loop makes
    new on each pass: a new object that compares unequal, or a Python number that changes."""
    for made, maker in rc.made_each_pass(model, arg, call, loop):
        parts = list(static_parts(model, made, static, arrays_only))
        if not parts:
            continue
        varying = _varying_in_scope(model, made, maker)
        for part, value in parts:
            fresh = fresh_object(model, value)
            if fresh is not None:
                return part, value, fresh
            # Under filter_jit a changing number is static only while it is a Python one.
            if rc.varies(model, value, varying) \
                    and (not arrays_only or model.value(value).shape is Shape.SCALAR):
                return part, value, ""
    return None


def _counted_back(model, call, loop, callee, arg):
    """The static field the callee returns counted up, where the loop binds that result
    to the name it passes as `arg` (`scene, loss = step(scene, ...)`)."""
    statement = model.parent(call)
    if not isinstance(arg, cst.Name) or not isinstance(statement, cst.Assign) \
            or len(statement.targets) != 1 or rc.short_loop(model, loop):
        return None
    positions = _rebound_at(statement.targets[0].target, arg.value)
    if not positions:
        return None
    return counted_fields(model, callee.function, callee.context.arrays_only).get(positions[0])


def _takes_pytree_classes(model) -> bool:
    """Whether the file defines pytree classes whose static fields an argument may fill."""
    return any(c.pytree for c in model.classes)


def _only_short_loops(model, loop) -> bool:
    """`for lr in (1e-3, 1e-2):`, loops over a handful of stated settings all the way
    out: whatever each pass makes new, the program compiles once per setting. A short
    `range(...)` repeats the same work, so an object made anew on each pass compiles
    the same program again for nothing: that is reported."""
    cur = loop
    settings = False
    while cur is not None:
        if not rc.short_loop(model, cur):
            return False
        settings = settings or not _over_range(model, cur)
        cur = rc.repeating_loop(model, cur)
    return settings


def _over_range(model, loop) -> bool:
    iterable = loop.iter if isinstance(loop, cst.For) else getattr(getattr(loop, "for_in", None), "iter", None)
    return isinstance(iterable, cst.Call) and model.qualname(iterable.func) == "builtins.range"


def _varying_in_scope(model, node, loop) -> set[str]:
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


def _rebound_at(target: cst.BaseAssignTargetExpression, name: str) -> list:
    """Where an assignment's target rebinds `name`: [None] for the whole value
    (`scene = step(scene)`), the tuple positions for an unpacking (`scene, loss = ...`)."""
    if isinstance(target, cst.Name):
        return [None] if target.value == name else []
    if isinstance(target, (cst.Tuple, cst.List)):
        return [k for k, el in enumerate(target.elements)
                if isinstance(el.value, cst.Name) and el.value.value == name]
    return []
