"""JAX102: traced code that writes to state outliving the trace (globals, closures, `self`)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.flow import body
from jaxlint.engine.model import children, walk

from jaxlint.engine.functions import FunctionInfo
from jaxlint.jax_api import STATEFUL_MODULE_CLASSES
from jaxlint.rules._impurity import (INIT_METHODS, holds_tracer, outlives_trace, owner_of, root_name,
                                     self_name, trace_time_function, where)
from jaxlint.rules.base import Rule

#: Methods of list / dict / set / deque that store their arguments in the container.
MUTATING_METHODS: frozenset[str] = frozenset({
    "append", "extend", "insert", "update", "add", "setdefault", "appendleft", "extendleft",
})

#: Class decorators that leave attribute assignment as it is.
_NEUTRAL_CLASS_DECORATORS: frozenset[str] = frozenset({
    "dataclasses.dataclass", "typing.final", "functools.total_ordering",
    # Registering a pytree returns the class itself.
    "jax.tree_util.register_pytree_node_class", "jax.tree_util.register_dataclass",
})
_FIX_LEAK = ("return the value from the function instead (or use jax.debug.callback to "
             "record values per call)")
_FIX_ONCE = "return the new state from the function and pass it back in on the next call"


#: Of those, the ones that only lists have: any receiver that has them is a list.
_LIST_METHODS: frozenset[str] = frozenset({"append", "extend", "insert", "appendleft", "extendleft"})
_HOLDER_VALUES = (cst.List, cst.Tuple, cst.Dict, cst.Set, cst.Lambda)
_CONTAINER_LITERALS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)
_CONTAINER_CALLS: frozenset[str] = frozenset({
    "builtins.list", "builtins.dict", "builtins.set", "collections.deque",
    "collections.defaultdict", "collections.OrderedDict", "collections.Counter",
})


class ExternalStateWrite(Rule):
    code = "JAX102"
    traced_code = True
    name = "external-state-write"
    summary = "traced code writes to a global, a closure or `self`: once per trace, and tracers leak"
    confirm_kind = "leak"

    def check(self):
        model = self.model
        for node in model.nodes(cst.Assign, cst.AugAssign, cst.AnnAssign):
            if isinstance(node, cst.AnnAssign) and node.value is None:
                continue
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                yield from self._assignment(node, target)
        for call in model.nodes(cst.Call):
            func = call.func
            if not isinstance(func, cst.Attribute) or func.attr.value not in MUTATING_METHODS:
                continue
            if func.attr.value not in _LIST_METHODS and not self._known_container(func.value):
                continue  # `opt.update(grads, state)` is optax's API, not dict.update
            if not isinstance(model.parent(call), cst.Expr) and not self._known_container(func.value):
                # `state = buffer.insert(state, x)`: list.insert returns None, so a used
                # result means a functional API that returns the new state.
                continue
            values = [a.value for a in call.args]
            yield from self._write(call, func.value, values, f".{func.attr.value}(...)")
        yield from self._static_closure_leaks()

    def _static_closure_leaks(self):
        """A jitted function returns a pytree whose static field (its aux data, which jit
        hands back as the very objects the trace made) holds closures that a factory of this
        file made during the trace over a traced value: `TrainState(..., tx=make_tx(
        schedule(...)))` where `schedule` closes over `bounds = jnp.stack(...)`. The tracer
        leaves the trace inside the static part; calling the closure later raises
        UnexpectedTracerError (jax 0.10.2; `jax.check_tracer_leaks()` reports the leak)."""
        model = self.model
        if not any(c.pytree and any(f.static for f in c.fields.values()) for c in model.classes):
            return
        for info in model.functions:
            if not any(c.cached and c.via in ("decorator", "wrapper") for c in info.contexts.values()):
                continue
            for returned in model.returned_expressions(info) or ():
                for klass, field, value in _static_field_values(model, returned):
                    found = _closure_over_tracer(model, value)
                    if found is None:
                        continue
                    closure, name = found
                    yield self.report(value, (
                        f"`{info.name}` returns a `{klass.name}` from jit whose static field `{field}` "
                        f"holds the closure `{closure}`, made during the trace over `{name}`, a tracer: "
                        f"static fields leave jit as the objects the trace built, so the tracer leaks "
                        f"and calling `{field}` later raises UnexpectedTracerError; build `{field}` "
                        f"outside the jitted function, or from Python values only"), info)

    def _assignment(self, node, target):
        value = node.value
        if isinstance(target, cst.Name):
            func = trace_time_function(self.model, node)
            if func is None:
                return
            if target.value in func.scope.globals:
                place = "module"
            elif target.value in func.scope.nonlocals:
                place = outlives_trace(self.model, target, func)
            else:
                return
            if place is not None:
                yield from self._flag(node, target, func, place, [value], "assignment to")
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                yield from self._assignment(node, el.value)
        elif isinstance(target, cst.Subscript):
            # A list, dict or closure holding a tracer fits no array: what it is stored in
            # is a Python container, whatever the model knows of it.
            # (Only as the whole target: `a[...], b[...] = x, y` writes Pallas refs, element-wise.)
            sole = isinstance(node, cst.Assign) and any(t.target is target for t in node.targets)
            if self._known_container(target.value) or (
                    sole and isinstance(value, _HOLDER_VALUES) and holds_tracer(self.model, value)):
                yield from self._write(node, target.value, [value], "item assignment to", target)
        elif isinstance(target, cst.Attribute):
            func = self.model.function_of(node)
            if func is None or self._decorated_class(func):
                return
            if isinstance(target.value, cst.Name) and target.value.value == self_name(func):
                yield from self._write(node, target.value, [value], "attribute assignment to", target)
            else:
                # Other objects may be built inside the trace; those `self` holds are not.
                yield from self._part_of_self_write(node, target, value, func)

    def _part_of_self_write(self, node, target: cst.Attribute, value, func):
        """`self.env.sys = sys`, `env = self.env; env.unwrapped.sys = sys`: an object that
        `self` holds outlives the trace as `self` does, so a tracer written on it leaks."""
        model = self.model
        if self_name(func) is None:
            return
        root = _self_part(model, target.value, func, 0)
        if root is None or model.value(root).traced:
            return  # not a part of `self`, or `self` is jit's copy of a pytree argument
        traced = trace_time_function(model, node)
        method = func
        while method is not None and not method.is_method:
            method = method.enclosing
        if traced is None or method is None or not self._self_from_outside(method, 0) \
                or not holds_tracer(model, value):
            return
        yield from self._flag(node, target, traced, "self", [value], "attribute assignment to")

    def _decorated_class(self, func) -> bool:
        """A class rewritten by a decorator we do not know (`@Stateful.infer_class_state`)
        may turn `self.x = ...` into state it collects and returns: stay silent."""
        method = func
        while method is not None and not method.is_method:
            method = method.enclosing
        if method is None or method.klass is None or method.klass.node is None:
            return False
        if self._stateful_module(method.klass):
            return True
        for dec in method.klass.node.decorators:
            expr = dec.decorator
            q = self.model.qualname(expr.func if isinstance(expr, cst.Call) else expr)
            if q not in _NEUTRAL_CLASS_DECORATORS:
                return True
        return False

    def _stateful_module(self, klass, depth: int = 0) -> bool:
        """An nnx Module (directly or through classes of this file): nnx transforms carry
        its attribute updates out of the trace."""
        for base in klass.node.bases:
            if self.model.qualname(base.value) in STATEFUL_MODULE_CLASSES:
                return True
            local = self.model.resolve_class(base.value)
            if local is not None and local is not klass and depth < 8 \
                    and self._stateful_module(local, depth + 1):
                return True
        return False

    def _known_container(self, expr) -> bool:
        """A list / dict / set: a name bound only to one, or `self.x` set to one in the class."""
        model = self.model
        if isinstance(expr, cst.Name):
            bindings = model.scope_of(expr).lookup(expr.value)
            return bool(bindings) and all(
                b.kind == "assign" and isinstance(b.node, (cst.Assign, cst.AnnAssign))
                and self._is_container(b.node.value) for b in bindings)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            func = model.function_of(expr)
            if func is None or expr.value.value != self_name(func):
                return False
            method = func
            while method is not None and not method.is_method:
                method = method.enclosing
            sets = [a.value for m in method.klass.methods.values()
                    for a in model.nodes(cst.Assign) if model.function_of(a) is m
                    and any(isinstance(t.target, cst.Attribute) and t.target.attr.value == expr.attr.value
                            and isinstance(t.target.value, cst.Name) and t.target.value.value == m.positional[0]
                            for t in a.targets if m.positional)]
            return bool(sets) and all(self._is_container(v) for v in sets)
        return False

    def _is_container(self, value) -> bool:
        if isinstance(value, _CONTAINER_LITERALS):
            return True
        return isinstance(value, cst.Call) and self.model.qualname(value.func) in _CONTAINER_CALLS

    def _write(self, node, container, values, what, target=None):
        model = self.model
        root = root_name(container)
        if root is None:
            return
        func = trace_time_function(model, node)
        if func is None:
            return
        place = None
        if root.value == self_name(func) and (not model.value(root).traced or self._passed_as_is(func)):
            method = func
            while method is not None and not method.is_method:
                method = method.enclosing
            if method is None or not self._self_from_outside(method, 0):
                return
            if method is func and isinstance(target, cst.Attribute) \
                    and _dropped_after_trace(model, method, target.attr.value):
                return
            place = "self"
        else:
            place = outlives_trace(model, root, func)
        if place is None:
            if target is not None and root.value == self_name(func) and model.value(root).traced:
                yield from self._write_to_copy(node, target, func)
            return
        yield from self._flag(node, target if target is not None else container, func, place,
                              values, what)

    def _write_to_copy(self, node, target, method):
        """`self.valid = False` in a method of a pytree argument of a jitted function: jit
        hands the function a copy rebuilt from the leaves, so a write to state the class
        flattens (its `tree_flatten` reads it) changes the copy, never the caller's object,
        unless the object is handed back. Eagerly the same call changes the caller's."""
        model = self.model
        if not isinstance(target, cst.Attribute) or not method.is_method or method.klass is None:
            return
        flatten = method.klass.methods.get("tree_flatten")
        attr = target.attr.value
        if flatten is None or not flatten.positional or not any(
                isinstance(n, cst.Attribute) and n.attr.value == attr and isinstance(n.value, cst.Name)
                and n.value.value == flatten.positional[0] for n in walk(flatten.node.body)):
            return
        if _returns_name(model, method, self_name(method)):
            return
        callers = []
        for ctx in method.contexts.values():
            call = ctx.origin
            if ctx.via != "helper" or not isinstance(call, cst.Call) \
                    or not isinstance(call.func, cst.Attribute) or not isinstance(call.func.value, cst.Name):
                return
            caller = model.function_of(call)
            name = call.func.value.value
            if caller is None or name not in caller.all_params or not caller.cached \
                    or any(c.via == "helper" for c in caller.contexts.values()) \
                    or _returns_name(model, caller, name):
                return
            callers.append(caller)
        if not callers:
            return
        yield self.report(node, (
            f"`{self.source(target)} = ...` in `{method.name}`, called on an argument of the jitted "
            f"`{callers[0].name}`, changes the copy jit rebuilds from the argument's leaves: the "
            f"caller's object keeps its old `{attr}` (without jit it would change); return the "
            f"new state instead, or update the object outside the jitted function"), method)

    def _passed_as_is(self, method: FunctionInfo) -> bool:
        """`obj.method(...)` on a parameter that some transform of the calling function
        does not trace (`jax.grad(f)(x, obj)` differentiates only `x`): there `self` is
        the caller's own object, not the copy jit rebuilds from its leaves."""
        for ctx in method.contexts.values():
            call = ctx.origin
            if ctx.via != "helper" or not isinstance(call, cst.Call) \
                    or not isinstance(call.func, cst.Attribute) or not isinstance(call.func.value, cst.Name):
                continue
            caller = self.model.function_of(call)
            name = call.func.value.value
            if caller is None or name not in caller.all_params:
                continue
            if any(c.via != "helper" and (name in c.static or c.traced_params is not None
                                          and name not in c.traced_params)
                   for c in caller.contexts.values()):
                return True
        return False

    def _self_from_outside(self, method: FunctionInfo, depth: int) -> bool:
        """Whether `self` in this traced method can be an object made before the trace.

        Not when the method is `__init__` (or only reached from it through
        `self.helper()` calls): the object is being built inside the trace.
        """
        if method.name in INIT_METHODS or depth > 8:
            return False
        for ctx in method.contexts.values():
            if ctx.via != "helper":
                return True
            if self._on_traced_parameter(ctx.origin):
                continue
            caller = self.model.function_of(ctx.origin) if ctx.origin is not None else None
            while caller is not None and not caller.is_method:
                caller = caller.enclosing
            if caller is None or self._self_from_outside(caller, depth + 1):
                return True
        return False

    def _on_traced_parameter(self, call) -> bool:
        """`carry.step(i)` in a `fori_loop` / `scan` body (or a jitted function) whose
        parameter `carry` is traced: the object is rebuilt from the carried leaves inside
        the trace, so `self` there is made in the trace, not before it. Only where every
        transform of the caller traces it: `jax.grad(f)(x, obj)` hands `f` the caller's own
        `obj`."""
        model = self.model
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) \
                or not isinstance(call.func.value, cst.Name):
            return False
        receiver = call.func.value
        name = receiver.value
        caller = model.function_of(call)
        if caller is None or name not in caller.all_params or not caller.contexts \
                or not model.value(receiver).traced:
            return False
        return all(c.via != "helper" and name not in c.static
                   and (c.traced_params is None or name in c.traced_params)
                   for c in caller.contexts.values())

    def _flag(self, node, shown, func, place, values, what):
        traced = any(v is not None and holds_tracer(self.model, v) for v in values)
        name = self.source(shown)
        what = f"`{name}{what}`" if what.startswith(".") else f"{what} `{name}`"
        if traced:
            msg = (f"{what} {where(func)} stores a tracer outside the trace: using it "
                   f"after the trace raises UnexpectedTracerError; {_FIX_LEAK}")
        elif func.cached and place != "outer trace" and self._counter(node, shown) \
                and not self._counts_traces(shown, func):
            # A static write only misbehaves by running once per trace; we report the
            # updates meant to run per call (counters), not trace-time bookkeeping.
            msg = (f"{what} {where(func)} runs once, at trace time, not on every call; "
                   f"{_FIX_ONCE}")
        else:
            return
        details = {"place": place}
        root = root_name(shown) if not isinstance(shown, cst.Name) else shown
        if place == "module" and root is not None:
            details["global_name"] = root.value  # confirm mode looks for the tracer there
        elif isinstance(shown, cst.Attribute) and isinstance(shown.value, cst.Name) \
                and shown.value.value == "self" and func.is_method:
            details["attr_name"] = shown.attr.value  # confirm mode watches `self.<attr>`
        yield self.report(node, msg, func, **details)

    def _counts_traces(self, shown, func) -> bool:
        """A counter read only by comparisons (`assert n_traces == 1`): a test that counts
        traces on purpose, which is what the once-per-trace increment does. Or a closure's
        counter that is never read."""
        model = self.model
        if not isinstance(shown, cst.Name):
            return False
        owner = owner_of(model, shown, func)
        reads = 0
        for name in model.nodes(cst.Name):
            if name.value != shown.value or name is shown:
                continue
            f = model.function_of(name)
            inner = f
            while inner is not None and inner is not func:
                inner = inner.enclosing
            if inner is func:
                continue  # the traced function's own increments
            if (owner_of(model, name, f) if f is not None else
                    ("module", None) if name.value in model.module_scope.bindings else None) != owner:
                continue
            parent = model.parent(name)
            if isinstance(parent, (cst.AssignTarget, cst.NameItem)) or (
                    isinstance(parent, cst.AugAssign) and parent.target is name):
                continue
            if not any(isinstance(a, (cst.Comparison, cst.Assert)) for a in model.ancestors(name)):
                return False
            reads += 1
        # A closure's counter that nothing reads changes nothing; a global may be read elsewhere.
        return reads > 0 or (owner is not None and owner[0] == "function")

    def _counter(self, node, shown) -> bool:
        """`n += 1`, `n = n + 1`: state meant to change on every call."""
        if isinstance(node, cst.AugAssign):
            return True
        if not isinstance(node, cst.Assign) or not isinstance(shown, (cst.Name, cst.Attribute)):
            return False
        target = self.model.module.code_for_node(shown)
        stack = [node.value]
        while stack:
            cur = stack.pop()
            if isinstance(cur, (cst.Name, cst.Attribute)) and self.model.module.code_for_node(cur) == target:
                return True
            stack.extend(children(cur))
        return False


def _self_part(model, expr, func: FunctionInfo, depth: int,
               reading: frozenset = frozenset()) -> Optional[cst.Name]:
    """The `self` name that `expr` is an object held by: `self.env`, `self.env.unwrapped`
    (a property of this file whose every getter returns such a part), or a name bound
    once, in the same function, to one (`env = self.env`). None for anything else.
    `reading`: the getters being read; a wrapper's `unwrapped` returning the wrapped
    object's `unwrapped` is such a part if the other getters are."""
    if depth > 12:
        return None
    if isinstance(expr, cst.Name):
        if expr.value == self_name(func):
            return expr
        bindings = model.scope_of(expr).lookup(expr.value)
        if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
            return None
        stmt = bindings[0].node
        if not isinstance(stmt, cst.Assign) or len(stmt.targets) != 1 \
                or not isinstance(stmt.targets[0].target, cst.Name) or model.function_of(stmt) is not func:
            return None
        return _self_part(model, stmt.value, func, depth + 1, reading)
    if not isinstance(expr, cst.Attribute):
        return None
    root = _self_part(model, expr.value, func, depth + 1, reading)
    if root is None:
        return None
    attr = expr.attr.value
    getters = [m for c in model.classes for name, m in c.methods.items() if name == attr]
    if getters:
        # A method's name: only a property that hands back a part of its own object.
        for getter in getters:
            if not _is_property(getter):
                return None
            if getter in reading:
                continue
            returns = [r for r in model.nodes(cst.Return) if model.function_of(r) is getter]
            if not returns or any(r.value is None or _self_part(model, r.value, getter, depth + 1,
                                                                 reading | {getter}) is None
                                  for r in returns):
                return None
        return root
    # A field some class of this file sets on its objects (`self.env = env`).
    return root if any(attr in c.attribute_sites for c in model.classes) else None


def _is_property(func: FunctionInfo) -> bool:
    return isinstance(func.node, cst.FunctionDef) and any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "property" for d in func.node.decorators)


def _returns_name(model, func, name: str) -> bool:
    """Whether a `return` of `func` hands back the object `name` (alone or in a tuple)."""
    for ret in model.nodes(cst.Return):
        if ret.value is None or model.function_of(ret) is not func:
            continue
        values = [el.value for el in ret.value.elements] if isinstance(ret.value, (cst.Tuple, cst.List)) \
            else [ret.value]
        if any(isinstance(v, cst.Name) and v.value == name for v in values):
            return True
    return False


def _dropped_after_trace(model, method: FunctionInfo, attr: str) -> bool:
    """`model.set_coefs(flat)` first thing in a jitted `loss` that closes over `model`, a
    local of the function that runs the optimizer, which rebinds `model` before it reads
    it again (or never reads it again). The tracer `set_coefs` leaves in `model.coefs` is
    never read outside a trace: each trace writes `coefs` before anything reads it, and
    the object is dropped after the last call that can trace `loss`."""
    if not method.contexts or not method.positional or not _written_before_read(model, method, attr):
        return False
    for ctx in method.contexts.values():
        call = ctx.origin
        if ctx.via != "helper" or not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) \
                or not isinstance(call.func.value, cst.Name):
            return False
        traced = model.function_of(call)
        name = call.func.value.value
        if traced is None or traced.enclosing is None or not traced.contexts \
                or any(c.via == "helper" for c in traced.contexts.values()) \
                or owner_of(model, call.func.value, traced) != ("function", traced.enclosing) \
                or not _first_use(model, traced, name, call) \
                or not _dropped_after_calls(model, traced.enclosing, traced, name):
            return False
    return True


def _written_before_read(model, method: FunctionInfo, attr: str) -> bool:
    """The first statement of `method` that mentions `self.<attr>` assigns it, from
    values that do not read it."""
    me = method.positional[0]

    def mentions(node) -> bool:
        return any(isinstance(n, cst.Attribute) and n.attr.value == attr and isinstance(n.value, cst.Name)
                   and n.value.value == me for n in walk(node))

    for stmt in body(method.node):
        if not mentions(stmt):
            continue
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        return isinstance(small, cst.Assign) and len(small.targets) == 1 \
            and isinstance(small.targets[0].target, cst.Attribute) \
            and mentions(small.targets[0].target) and not mentions(small.value)
    return False


def _first_use(model, traced: FunctionInfo, name: str, call: cst.Call) -> bool:
    """`call` is a statement of its own at the top of `traced`'s body, and no statement
    before it mentions `name`."""
    for stmt in body(traced.node):
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], cst.Expr) and stmt.body[0].value is call:
            return True
        if _references(model, stmt, name, traced):
            return False
    return False


def _references(model, node: cst.CSTNode, name: str, func: FunctionInfo) -> list:
    """The reads and writes of the variable `name` of `func`'s scope inside `node`
    (not attribute names, keywords or a nested function's own variable)."""
    owner = owner_of(model, cst.Name(name), func)
    out = []
    for n in model.names_spelled_in(name, node):
        parent = model.parent(n)
        if isinstance(parent, cst.Attribute) and parent.attr is n or isinstance(parent, cst.Arg) and parent.keyword is n \
                or isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is n:
            continue
        where = model.function_of(n)
        if (owner_of(model, n, where) if where is not None else ("module", None)) == owner:
            out.append(n)
    return out


def _dropped_after_calls(model, outer: FunctionInfo, traced: FunctionInfo, name: str) -> bool:
    """In `outer`, whose variable `name` `traced` closes over: every other function that
    mentions `name` is `traced` itself or nested in it; `outer`'s own statements read
    `name` only for its attributes (they hand the object nowhere); and after the last
    statement that mentions `traced` (or a function of `outer` that does), the next one
    that mentions `name` rebinds it to a new value, or none does. The object is one
    `outer` made (a call's result, not a parameter or another name's object)."""
    if name in outer.all_params:
        return False  # the caller's object
    users = {traced.name}
    nested = [f for f in model.functions if f.enclosing is outer]
    grew = True
    while grew:
        grew = False
        for f in nested:
            if f.name not in users and any(_references(model, f.node, u, outer) for u in users):
                users.add(f.name)
                grew = True
    stmts = body(outer.node)
    last = max((i for i, stmt in enumerate(stmts)
                if not (isinstance(stmt, cst.FunctionDef) and stmt.name.value in users)
                and any(_references(model, stmt, u, outer) for u in users)), default=-1)
    if last < 0:
        return False
    end = len(stmts)
    for i in range(last + 1, len(stmts)):
        if _references(model, stmts[i], name, outer):
            small = stmts[i].body[0] if isinstance(stmts[i], cst.SimpleStatementLine) \
                and len(stmts[i].body) == 1 else None
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name
                    and not _references(model, small.value, name, outer)):
                return False  # read after the trace
            end = i
            break
    # Up to the rebinding, the object is the one the trace wrote on.
    for stmt in stmts[:end]:
        for ref in _references(model, stmt, name, outer):
            inner = model.function_of(ref)
            while inner is not None and inner is not traced and inner is not outer:
                inner = inner.enclosing
            if inner is traced:
                continue
            if model.function_of(ref) is not outer:
                return False  # another function reads or writes the object
            parent = model.parent(ref)
            if isinstance(parent, cst.AssignTarget):
                if not isinstance(model.parent(parent).value, cst.Call):
                    return False  # `model = shared`: an object held elsewhere too
            elif not (isinstance(parent, cst.Attribute) and parent.value is ref):
                return False  # handed on: another reference may outlive the trace
    return True


def _static_field_values(model, expr, depth: int = 0):
    """(class, field, value) for each static field that `expr` (a constructor call of a
    pytree class of this file, or a classmethod of it that returns `cls(...)`) fills."""
    if not isinstance(expr, cst.Call) or depth > 2 or any(a.star for a in expr.args):
        return
    klass = model.resolve_class(expr.func)
    if klass is not None:
        yield from _static_field_values_as(model, klass, expr)
        return
    if not isinstance(expr.func, cst.Attribute):
        return
    owner = model.resolve_class(expr.func.value)
    method = owner.methods.get(expr.func.attr.value) if owner is not None else None
    if method is None or not method.positional:
        return
    bound = {}
    params = method.positional[1:]  # `cls`
    for i, a in enumerate(expr.args):
        name = a.keyword.value if a.keyword is not None else (params[i] if i < len(params) else None)
        if name is not None:
            bound[name] = a.value
    for returned in model.returned_expressions(method) or ():
        if not isinstance(returned, cst.Call) or not isinstance(returned.func, cst.Name) \
                or returned.func.value != method.positional[0]:
            continue
        for klass, field, value in _static_field_values_as(model, owner, returned):
            if isinstance(value, cst.Name) and value.value in bound:
                yield klass, field, bound[value.value]


def _static_field_values_as(model, klass, call: cst.Call):
    """The static fields that `call` fills as a constructor of `klass`: `Cls(...)` itself, or
    `cls(...)` inside a classmethod of `klass`."""
    init = klass.methods.get("__init__")
    if init is None or not klass.pytree or any(a.star for a in call.args):
        return
    params = init.positional[1:]
    for i, a in enumerate(call.args):
        name = a.keyword.value if a.keyword is not None else (params[i] if i < len(params) else None)
        field = klass.fields.get(name) if name is not None else None
        if field is not None and field.static:
            yield klass, name, a.value


def _closure_over_tracer(model, expr, depth: int = 0):
    """(closure, name) where `expr` calls a factory of this file whose return holds its own
    nested defs, one of which reads a traced value of the factory: a local array it computed
    during the trace, or what this call passes a parameter (a traced value, or closures of
    the same kind)."""
    if not isinstance(expr, cst.Call) or depth > 4 or not isinstance(expr.func, cst.Name):
        return None
    factory = model.resolve_function(expr.func)
    if factory is None or not isinstance(factory.node, cst.FunctionDef) or not factory.traced:
        return None
    nested = {child.name: child for child in factory.children if not child.is_lambda}
    returned = set()
    for value in model.returned_expressions(factory) or ():
        parts = [value]
        if isinstance(value, (cst.Tuple, cst.List)):
            parts = [el.value for el in value.elements]
        elif isinstance(value, cst.Call):
            parts = [a.value for a in value.args]
        returned |= {p.value for p in parts if isinstance(p, cst.Name) and p.value in nested}
    for name in sorted(returned):
        closure = nested[name]
        for node in walk(closure.node.body):
            if not isinstance(node, cst.Name) or node.value in closure.scope.bindings \
                    or node.value not in factory.scope.bindings:
                continue
            if node.value in factory.all_params:
                from jaxlint.engine.callees import argument_for

                arg = argument_for(expr, factory, node.value, 0)
                if arg is None:
                    continue
                if model.value(arg).tracer:
                    return name, node.value
                inner = _closure_over_tracer(model, arg, depth + 1)
                if inner is not None:
                    return inner
                continue
            values = model.assigned_values(node)
            if values and all(model.value(v).tracer for v in values):
                return name, node.value
    return None
