"""JAX402: jit of a callable that is new each time, so it compiles each time."""

from __future__ import annotations

from functools import cached_property
from typing import Optional

import libcst as cst

from jaxlint.rules import _recompile as rc
from jaxlint.rules.base import Rule
from jaxlint.engine.model import children, walk
from jaxlint.engine.scopes import target_names
from jaxlint.engine.static_parts import bind_arguments
from jaxlint.engine.tracing import PARTIAL, decorator_transform, transform_for
from jaxlint.jax_api import (ARRAY_METHODS, BODY_CALLS, EAGER_COMPILED_BODY_CALLS, EQUAL_BY_VALUE_WRAPPERS,
                             LAX_OPERAND_KEYWORDS, VALUE_KEYED_TRANSFORMS)


class JitOfFreshCallable(Rule):
    code = "JAX402"
    name = "jit-of-fresh-callable"
    summary = "jax.jit of a lambda, partial, bound method or nested def created again on each call recompiles"
    confirm_kind = "recompile"

    def fix(self, report):
        from jaxlint.fixes.recompile import hoist_fix

        node = report.node
        if not isinstance(node, cst.Call) or self.model.qualname(node.func) in EAGER_COMPILED_BODY_CALLS:
            return None
        loop = rc.repeating_loop(self.model, node)
        if loop is not None and self._per_item(rc.wrapped_callable(node), loop):
            return None  # one jitted method per object: kept across calls, not hoisted out of the loop
        return hoist_fix(self.model, node)

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            transform = rc.compiling_transform(model, call)
            if transform is None:
                continue
            target = rc.wrapped_callable(call)
            if target is None:
                continue
            target = _held_partial(model, target, call)
            yield from self._check(call, target, rc.bound_name(model, call), transform.name)
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            program = EAGER_COMPILED_BODY_CALLS.get(q)
            if program is None:
                continue
            if not rc.runs_eagerly(model, call, dispatching=True):
                continue
            bodies = [_held_partial(model, b, call) for b in _bodies(call, BODY_CALLS[q])]
            if any(self._calls_what_changes(call, body) for body in bodies):
                continue  # a different program on each call: compiling each is inherent
            for target in bodies:
                found = list(self._check(call, target, None, q.removeprefix("jax."), program=program))
                if found:
                    yield found[0]  # one finding per call: its other bodies are made with it
                    break
        for node in model.nodes(cst.FunctionDef):
            for dec in node.decorators:
                use = decorator_transform(model, dec.decorator)
                if use is not None and use.transform.cached:
                    yield from self._check(node, node, node.name, use.transform.name)
                    break

    @cached_property
    def _repeated(self) -> set:
        # Asked only past the cheaper tests: it finds the callee of every call of the file.
        return rc.repeated_functions(self.model)

    def _check(self, created, target, name: Optional[cst.Name], transform: str, program: str = ""):
        """`program`: set for eager lax control flow (`jax.lax.while_loop(cond, body, x)`),
        which compiles `jit(<program>)` and runs it at once."""
        model = self.model
        if not program and rc.inside_traced(model, created):
            return  # (eager lax control flow was checked to run outside jit, maybe under vmap)
        loop = rc.repeating_loop(model, created)
        owner = model.function_of(created)
        items = None
        if loop is not None and self._per_item(target, loop):
            # `jax.jit(member.foo)` for each member: each object needs a compile of its own
            # once; what is wasted is making them all again on every call of a function that
            # runs in a loop over the same objects (3 calls over 5 members: 15 traces).
            if owner is None or owner not in self._repeated or not self._same_items(loop, owner):
                return
            items, loop = loop, None
        if not (loop is not None and rc.repeats_over_steps(model, created)) \
                and (owner is None or owner not in self._repeated):
            return  # made once, or once per value of a handful listed in the code
        fresh = self._fresh(target, loop, owner)
        if fresh is None or transform in VALUE_KEYED_TRANSFORMS and self._equal_each_pass(target, loop):
            return
        if self._depends_on_what_changes(created, target, loop, owner):
            return
        if rc.once_per_pass(model, created, self._repeated):
            return
        if program and rc.beside_compiled_loop(model, created, loop):
            return  # tens of ms against a compiled loop of steps on every pass
        if loop is not None and (rc.checks_each_case(model, loop) or rc.makes_up_a_shortfall(model, loop)):
            return  # one compile per test case, or per pass of a loop that runs once or twice
        if loop is not None and self._latched(created, loop):
            return
        what, fun_name = fresh
        # What a factory returns is followed to its callers: `step = make_step(cfg)` then
        # `step(x)` in the loop that calls the factory.
        sites: dict = {}
        uses = [created] if program else rc.call_uses(model, created, name, sites)
        if not uses:
            return
        if rc.stored_on_self(model, created) is not None:
            # Called from elsewhere: what counts is a call between two wraps.
            if not self._called_between(created, uses):
                return
        elif any(self._reused(use, rc.repeating_loop(model, sites[use]) if use in sites else loop or items)
                 for use in uses):
            return
        if sites and (loop is not None or not all(
                self._repeats_with(model.function_of(sites[use]), sites[use]) for use in uses if use in sites)):
            return
        if loop is not None:
            if not any(rc.loop_body_contains(loop, use, model) for use in uses):
                return
            when = "on every loop iteration"
            fix = "create the jitted function once, before the loop"
        else:
            when = f"on every call of `{owner.name}`, which runs in a loop"
            fix = "create the jitted function once (at module level, in `__init__`, or in a factory) and reuse it"
        if program:
            fix = ("define the bodies once (at module level or in a factory), or call this "
                   "under a jitted function that is created once")
        if program:
            head = f"`{transform}` called outside jit compiles its bodies, and it gets"
        elif isinstance(created, cst.Call):
            head = f"`{self.source(created)}` wraps"
        else:
            head = f"`@{transform}` wraps"
        msg = (f"{head} {what}, a new object {when}, so JAX compiles it "
               f"again each time (tens of ms, against microseconds for a cached call); "
               f"{fix}, passing what changes as arguments")
        yield self.report(created if isinstance(created, cst.Call) else created.name, msg, owner,
                          fun_name=f"jit({program})" if program else f"{transform}({fun_name})")

    def _same_at_every_call(self, owner, depth: int = 0) -> set[str]:
        """Parameters of `owner` that get the same value on every pass of each loop that
        calls it: `outer_func(q, 1e-3)` in `for _ in range(n)`, with `q` bound before the
        loop. A closure over them is the same program each call, so rebuilding it is waste.
        Through calls from functions the loop runs: a caller's parameter handed down as it
        is (`run(params, x)` in `def step(params, x)`) is the same when the caller's is."""
        known = self.__dict__.setdefault("_same_params", {})
        if owner in known:
            return known[owner]
        known[owner] = set()  # a cycle of calls: nothing known on the way round
        known[owner] = found = self._find_same_at_every_call(owner, depth)
        return found

    def _find_same_at_every_call(self, owner, depth: int) -> set[str]:
        model = self.model
        calls = list(rc.calls_by_callee(model).get(owner, ()))
        if not calls:
            return set()
        # `*args` / `**kwargs` take what the named parameters do not: those stay as read.
        same = set(owner.all_params) - {owner.vararg, owner.kwarg}
        for call in calls:
            loop = rc.repeating_loop(model, call)
            passed = _passed_arguments(model, call, owner)
            if passed is None:
                return set()
            if loop is not None:
                changing = _assigned_in(model, loop)
                for param in list(same):
                    arg = passed.get(param)
                    if arg is not None and not _invariant(arg, changing):
                        same.discard(param)
                continue
            caller = model.function_of(call)
            if caller is None or depth > 6:
                return set()  # called once from the top level, or too far to follow
            handed = self._same_at_every_call(caller, depth + 1)
            for param in list(same):
                arg = passed.get(param)
                if arg is not None and not (isinstance(arg, (cst.Integer, cst.Float, cst.SimpleString)) or (
                        isinstance(arg, cst.Name) and arg.value in handed and model_binding_is_param(model, arg))):
                    same.discard(param)
        return same

    def _calls_what_changes(self, call: cst.Call, body) -> bool:
        """A body of an eager `lax.while_loop` that calls a parameter of its function
        (`opt.update(...)`, `fun(x)`) the callers do not pass the same at every call:
        the callable is traced into the program, so each call with another one is a
        different program that would compile however the bodies were made."""
        model = self.model
        owner = model.function_of(call)
        if owner is None or rc.repeating_loop(model, call) is not None:
            return False
        if isinstance(body, cst.Name):
            info = model.resolve_function(body)
            body = info.node if info is not None and info.enclosing is owner else None
        if not isinstance(body, (cst.FunctionDef, cst.Lambda)):
            return False
        changing = set(owner.all_params) - self._same_at_every_call(owner)
        if owner.is_method and owner.positional:
            changing.discard(owner.positional[0])
        for node in walk(body):
            if not isinstance(node, cst.Call):
                continue
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value not in ARRAY_METHODS:
                func = func.value
            if isinstance(func, cst.Name) and func.value in changing \
                    and model.scope_of(func).lookup(func.value) == owner.scope.lookup(func.value):
                return True
        return False

    def _called_between(self, created, uses) -> bool:
        """`self.f = jax.jit(self.f)` compiles anew only where the stored callable is
        called between two wraps: the loop that reruns the wrap (`for it in ...:
        prox.build(); step(prox, x)`) also calls it, and no test of the object's
        state (`if self.built: return`) lets the wrap run once per object."""
        model = self.model
        wraps = rc.loops_running(model, created)
        return bool(wraps) and not rc.under_state_test(model, created) \
            and any(wraps & rc.loops_running(model, use) for use in uses)

    def _repeats_with(self, caller, site: cst.Call) -> bool:
        """Whether the factory call `site` repeats: in a loop over steps, or in a function
        that repeats (so each new callable meets its use once)."""
        return rc.repeats_over_steps(self.model, site) or caller in self._repeated

    def _equal_each_pass(self, target, loop) -> bool:
        """The wrapped callable compares equal on every pass: a bound method of an object
        the loop does not rebind (`self.sample`), through wrappers equal by value
        (`eqx.filter_vmap(jax.tree_util.Partial(self.sample, kernel))`). A lambda, a def
        or a `functools.partial` made each pass is a new key."""
        model = self.model
        while isinstance(target, cst.Call) and model.qualname(target.func) in EQUAL_BY_VALUE_WRAPPERS:
            if not target.args or target.args[0].keyword is not None:
                return False
            target = target.args[0].value
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)):
            return False
        if loop is None:
            return target.value.value == "self"
        return not any(b.node is loop or rc.loop_body_contains(loop, b.node, model)
                       for b in model.scope_of(target.value).lookup(target.value.value) or [])

    def _reused(self, use: cst.Call, loop) -> bool:
        """Whether one creation serves many calls: `use` runs in a loop of more than a
        handful of iterations inside the loop (or the function) that creates it, as in
        `step = jax.jit(...)` then `for batch in data: step(batch)`. Then it compiles
        once per creation and the cache serves the rest."""
        inner = rc.repeating_loop(self.model, use)
        while inner is not None and inner is not loop:
            if not rc.short_loop(self.model, inner):
                return True
            inner = rc.repeating_loop(self.model, inner)
        return False

    def _fresh(self, target, loop, owner):
        """(description, name JAX compiles it under) if `target` is a new object each time."""
        model = self.model
        if isinstance(target, cst.Lambda):
            return "a lambda", "<lambda>"
        if isinstance(target, cst.FunctionDef):
            return f"the nested function `{target.name.value}`", target.name.value
        if isinstance(target, cst.Call):
            q = model.qualname(target.func)
            inner = rc.wrapped_callable(target)
            inner_name = _function_name(inner)
            if q in PARTIAL:
                return "a partial object", inner_name
            if transform_for(model, q) is not None:
                return f"the result of `{self.source(target.func)}`", inner_name
            return None
        if isinstance(target, cst.Attribute):
            if self._bound_method(target):
                return (f"the bound method `{self.source(target)}` (each access makes one)",
                        target.attr.value)
            return None
        if isinstance(target, cst.Name):
            info = model.resolve_function(target)
            if info is None or info.enclosing is None or info.is_lambda:
                return None
            # A def re-runs with the code around it: each pass makes a new function.
            if loop is not None:
                if not rc.loop_body_contains(loop, info.node, model):
                    return None
            elif info.enclosing is not owner:
                return None
            return f"the nested function `{target.value}`", target.value
        return None

    def _depends_on_what_changes(self, created, target, loop, owner) -> bool:
        """`jax.jit(partial(f, mode=mode))` for each `mode` of a loop (or of the calls
        of its function), `jax.jit(f, out_shardings=specs[i])`, or a nested def that
        bakes the loop's static index into the program: each pass needs a different
        function, so compiling each is inherent, not waste."""
        model = self.model
        changing: set[str] = set()
        if loop is not None:
            if isinstance(loop, cst.For):
                changing |= {n.value for n in target_names(loop.target)}
            for node in model.nodes(cst.Assign):
                if rc.loop_body_contains(loop, node, model):
                    for t in node.targets:
                        changing |= {n.value for n in target_names(t.target)}
                        if isinstance(t.target, cst.Subscript) and isinstance(t.target.value, cst.Name):
                            changing.add(t.target.value.value)  # `config[k] = v`: what `config` holds
        elif owner is not None:
            changing |= set(owner.all_params) - {owner.positional[0] if owner.is_method and owner.positional else ""}
            changing -= self._same_at_every_call(owner)
        if not changing:
            return False
        lax_call = isinstance(created, cst.Call) and model.qualname(created.func) in EAGER_COMPILED_BODY_CALLS
        if isinstance(created, cst.Call) and any(
                _reads(a.value, changing) for a in created.args if a.keyword is not None
                and not (lax_call and a.keyword.value in LAX_OPERAND_KEYWORDS)):
            return True  # `out_shardings=...`, `static_argnums=...`: a different executable
        if isinstance(target, cst.Name):
            info = model.resolve_function(target)
            target = info.node if info is not None and loop is not None else target
        if isinstance(target, cst.FunctionDef):
            # A nested def reads its closure when traced, in the same pass: a static
            # value read there (`take(x, i)` for `i in range(n)`) makes a new program
            # each pass, which hoisting with `i` as a static argument would compile too.
            # An array read there could be an argument instead, so that still counts.
            if loop is None:
                return False
            info = model.function_info(target)
            own = set(info.all_params) if info is not None else set()
            static = rc.index_names(model, loop)
            return any(isinstance(n, cst.Name) and n.value in changing - own
                       and (n.value in static or model.value(n).static) for n in walk(target.body))
        if isinstance(target, cst.Call):
            parts = _bound_values(model, target)
        elif isinstance(target, cst.Lambda):
            parts = [target.body]
            info = model.function_info(target)
            if info is not None:
                changing = changing - set(info.all_params)  # its own parameters
        else:
            return False
        return any(_reads(part, changing) for part in parts)

    def _latched(self, created, loop) -> bool:
        """`if review and not ready: step = jax.pmap(...); ready = True`: the branch that
        wraps sets a name its own test reads, and nothing else in the loop sets it, so
        the branch runs once per run of the loop (a latch), not on every pass."""
        model = self.model
        for branch in model.ancestors(created):
            if branch is loop:
                return False
            if not isinstance(branch, cst.If) or not rc.loop_body_contains(branch.body, created, model):
                continue
            tested = {n.value for n in walk(branch.test) if isinstance(n, cst.Name)}
            latches = tested & _rebound_in(branch.body)
            if latches and not latches & _rebound_in(loop.body, skip=branch.body):
                return True
        return False

    def _per_item(self, target, loop) -> bool:
        """`member.foo` where `member` is the variable of the `for` loop around the wrap."""
        return isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
            and isinstance(loop, cst.For) and target.value.value in {n.value for n in target_names(loop.target)}

    def _same_items(self, loop: cst.For, owner) -> bool:
        """The loop runs over a parameter of `owner` that every call passes the same value."""
        it = loop.iter
        return isinstance(it, cst.Name) and it.value in owner.all_params \
            and model_binding_is_param(self.model, it) and it.value in self._same_at_every_call(owner)

    def _bound_method(self, attr: cst.Attribute) -> bool:
        model = self.model
        info = rc.method_of_self(model, attr)
        if info is None and isinstance(attr.value, cst.Name):
            info = _method_of_instance(model, attr)
        if info is None:
            # An object whose class the value model knows (`member` of a list of them).
            from jaxlint.engine.callees import instance_class

            klass = instance_class(model, attr.value)
            info = next((rel.methods[attr.attr.value] for rel in ([klass, *klass.relatives] if klass else [])
                         if attr.attr.value in rel.methods), None)
        if info is None:
            return False
        # A staticmethod read from an instance is the plain function, the same object each time.
        for dec in info.node.decorators:
            if model.qualname(dec.decorator) in ("builtins.staticmethod", "builtins.property"):
                return False
        return True


def _assigned_in(model, loop) -> set[str]:
    """Names a loop binds on each pass: its targets and what its body assigns."""
    names = {n.value for n in target_names(loop.target)} if isinstance(loop, cst.For) else set()
    for node in walk(loop):
        if isinstance(node, cst.AssignTarget):
            names |= {n.value for n in target_names(node.target)}
            base = node.target
            while isinstance(base, (cst.Attribute, cst.Subscript)):
                base = base.value  # `q.value = ...` changes what `q.value` reads
            if isinstance(base, cst.Name):
                names.add(base.value)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
            names |= {n.value for n in target_names(node.target)}
        elif isinstance(node, cst.CompFor):
            names |= {n.value for n in target_names(node.target)}
    return names


def _passed_arguments(model, call: cst.Call, owner) -> Optional[dict]:
    """What a call that runs `owner` gives each of its parameters: `f(a, b=c)`, `self.f(a)`,
    or an application of a transform of a partial, `jax.vmap(partial(f, p))(xs)` (the
    partial's arguments first); None where it cannot be read (`*args`)."""
    shift = 1 if owner.is_method else 0
    args = list(call.args)
    if isinstance(call.func, cst.Call):
        inner = rc.wrapped_callable(call.func)
        if isinstance(inner, cst.Call) and model.qualname(inner.func) in PARTIAL:
            args = list(inner.args[1:]) + args
        elif not isinstance(inner, cst.Name):
            return None
        shift = 0
    if any(a.star for a in args):
        return None
    return bind_arguments(owner.positional[shift:], args)


def _invariant(expr: cst.BaseExpression, changing: set[str]) -> bool:
    """A literal, or a name (or its attribute) the loop does not rebind."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _invariant(expr.expression, changing)
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name) and expr.value not in changing


def _bound_values(model, target: cst.Call) -> list[cst.BaseExpression]:
    """What a wrapped call builds its function from: `partial(f, a, b)` -> a, b; through
    transforms, `jax.vmap(make_train(config))` -> config (a factory's arguments)."""
    q = model.qualname(target.func)
    if q in PARTIAL:
        return [a.value for a in target.args[1:]]
    if transform_for(model, q) is not None:
        inner = rc.wrapped_callable(target)
        options = [a.value for a in target.args if a.value is not inner]
        return options + (_bound_values(model, inner) if isinstance(inner, cst.Call) else [])
    return [a.value for a in target.args]


def _rebound_in(node: cst.CSTNode, skip: Optional[cst.CSTNode] = None) -> set[str]:
    """Names a block rebinds anywhere inside it (leaving out the block `skip`)."""
    names: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n is skip:
            continue
        if isinstance(n, cst.AssignTarget):
            names |= {t.value for t in target_names(n.target)}
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For, cst.CompFor)):
            names |= {t.value for t in target_names(n.target)}
        stack.extend(children(n))
    return names


def _reads(expr: cst.CSTNode, names: set[str]) -> bool:
    return any(isinstance(n, cst.Name) and n.value in names for n in walk(expr))


def model_binding_is_param(model, name: cst.Name) -> bool:
    bindings = model.scope_of(name).lookup(name.value)
    return bool(bindings) and len(bindings) == 1 and bindings[0].kind == "param"


def _method_of_instance(model, attr: cst.Attribute):
    """`m.apply` where every binding of `m` is `m = SomeClass(...)` of this file."""
    bindings = model.scope_of(attr.value).lookup(attr.value.value)
    if not bindings:
        return None
    found = None
    for b in bindings:
        node = b.node
        if b.kind != "assign" or not isinstance(node, cst.Assign) or not isinstance(node.value, cst.Call):
            return None
        klass = model.resolve_class(node.value.func)
        if klass is None or attr.attr.value not in klass.methods:
            return None
        found = klass.methods[attr.attr.value]
    return found



def _held_partial(model, target: cst.BaseExpression, created: cst.Call) -> cst.BaseExpression:
    """`step = partial(f, params)` then `lax.scan(step, ...)` (or `jax.jit(step)`) in the
    same function: the partial itself, a new object each time that function runs, as
    when it is written in place. Any other target as it is."""
    if not isinstance(target, cst.Name):
        return target
    values = model.assigned_values(target)
    if values is None or len(values) != 1 or not isinstance(values[0], cst.Call) \
            or model.qualname(values[0].func) not in PARTIAL \
            or model.function_of(values[0]) is not model.function_of(created):
        return target
    loop = rc.repeating_loop(model, created)
    if loop is not None and not rc.loop_body_contains(loop, values[0], model):
        return target  # made once before the loop that reuses it
    return values[0]


def _bodies(call: cst.Call, spec) -> list[cst.BaseExpression]:
    """The callables a lax control-flow call is given (`cond_fun`, `body_fun`)."""
    out = []
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    for i in spec.fn_positions:
        if i < len(positional):
            out.append(positional[i])
    out += [a.value for a in call.args if a.keyword is not None and a.keyword.value in spec.fn_keywords]
    return out


def _function_name(expr) -> str:
    while isinstance(expr, cst.Call):
        inner = rc.wrapped_callable(expr)
        if inner is None:
            break
        expr = inner
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    if isinstance(expr, cst.Lambda):
        return "<lambda>"
    return "?"
