"""JAX805: an array donated to a jitted call (donate_argnums / donate_argnames) read afterwards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine import callees, tracing
from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.model import children, walk
from jaxlint.rules import _recompile as rc
from jaxlint.rules.base import Report, Rule

_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_BLOCKS = (cst.IndentedBlock, cst.SimpleStatementSuite, cst.Module)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


@dataclass
class _Donating:
    """A compiled callable with donated arguments."""

    label: str
    transform: str  # "jax.jit" / "jax.pmap"
    argnums: frozenset[int]
    argnames: frozenset[str]
    info: Optional[FunctionInfo]  # the function, when defined in this file
    shift: int  # positional parameters bound before the call's arguments (`self`)


class DonatedBufferReuse(Rule):
    code = "JAX805"
    name = "donated-buffer-reuse"
    summary = ("an array passed to a donated argument of a jitted call is read afterwards: "
               "its buffer was deleted (RuntimeError: Array has been deleted)")
    confirm_kind = "trace-error"
    raises = "RuntimeError"
    also_raises = ("ValueError", "JaxRuntimeError")

    def check(self) -> Iterator[Report]:
        model = self.model
        for call in model.nodes(cst.Call):
            if rc.inside_traced(model, call):
                continue  # a jit inside a trace is inlined: nothing is donated
            donating = self._donating(call.func)
            if donating is None:
                continue
            twice = self._passed_twice(call, donating)
            if twice is not None:
                yield twice
                continue
            for arg in self._donated_args(call, donating):
                if isinstance(arg, cst.Attribute):
                    yield from self._left_donated(call, arg, donating)
                if not isinstance(arg, cst.Name):
                    continue
                yield from self._alias_reads(call, arg, donating)
                if not self._on_device(arg):
                    continue
                found = _next_use(model, call, arg.value)
                if found is None:
                    continue
                node, again = found
                if not again and self._donated_again(node, call, donating):
                    msg = (f"`{arg.value}` was donated to {donating.label} on line "
                           f"{model.line_of(call)} and is passed to it again: JAX deleted its "
                           f"buffer, and the call raises ValueError (Buffer has been deleted or "
                           f"donated); pass the first call's result instead")
                    yield self.report(node, msg, model.function_of(node), expected="ValueError")
                    continue
                if again:
                    msg = (f"`{arg.value}` is donated to {donating.label} and not rebound in the "
                           f"loop: the next iteration passes the deleted array again, and the call "
                           f"raises (Buffer has been deleted or donated); assign the result back "
                           f"(`{arg.value} = ...`)")
                    yield self.report(arg, msg, model.function_of(call), expected="ValueError")
                    continue
                msg = (f"`{arg.value}` was donated to {donating.label} on line "
                       f"{model.line_of(call)}: JAX deleted its buffer, and reading it raises "
                       f"RuntimeError (Array has been deleted); use the call's result, or drop "
                       f"it from {'donate_argnums' if donating.argnums else 'donate_argnames'}")
                yield self.report(node, msg, model.function_of(node))

    def _left_donated(self, call: cst.Call, arg: cst.Attribute, donating: _Donating) -> Iterator[Report]:
        """`logs, _ = self.test_fn(batch, self.states)`: a method donates an attribute of the
        object and leaves it holding the deleted buffers; another method that reads it
        first thing fails (measured, jax 0.10.2 CPU: RuntimeError "Array has been deleted";
        passed to a jitted call, ValueError "Buffer has been deleted or donated")."""
        model = self.model
        if not isinstance(arg.value, cst.Name):
            return
        klass = model.class_of_self(arg.value)
        method = model.function_of(call)
        if klass is None or method is None or method.klass is not klass:
            return
        attr = arg.attr.value
        if _stores_attribute(method.node, attr, model) or not self._device_attribute(klass, attr) \
                or not self._returns_donated(call, arg, donating):
            return
        reads = []
        for other in klass.methods.values():
            if other is method or other.is_lambda or not other.positional or other.name == "__init__":
                continue
            got = _first_attribute(other.node.body, other.positional[0], attr)
            if got is not None and not got[1]:
                reads.append((other, got[0]))
        if not reads:
            return
        other, node = reads[0]
        # Passed to a compiled call, the deleted buffer is rejected by the executable.
        parent = model.parent(node)
        passed = isinstance(parent, cst.Arg) and isinstance(model.parent(parent), cst.Call) \
            and self._compiled_or_donating(model.parent(parent).func)
        error = "ValueError (Buffer has been deleted or donated)" if passed \
            else "RuntimeError (Array has been deleted)"
        yield self.report(arg, (
            f"`{self.source(arg)}` is donated to {donating.label} and never rebound: JAX deletes its "
            f"buffers, and `{other.name}` reads it (line {model.line_of(node)}), which then raises "
            f"{error}; assign the call's result back, or do not donate it"),
            method, expected=error.split()[0])

    def _compiled_or_donating(self, func: cst.BaseExpression) -> bool:
        return self._compiled(func) or self._donating(func) is not None

    def _returns_donated(self, call: cst.Call, arg: cst.Attribute, donating: _Donating) -> bool:
        """The compiled method hands the donated value back (`return logs, states`): its
        buffers alias an output, so JAX deletes them. A donation no output can use is
        skipped with a warning, and the array stays (measured, jax 0.10.2 CPU)."""
        func = call.func
        values = self.model.attribute_assignments(func) if isinstance(func, cst.Attribute) else None
        target = tracing.wrapped_target(values[0]) if values else None
        method = self.model.method_of_self(target) if target is not None else None
        if method is None or method.is_lambda:
            return False
        index = next((i for i, a in enumerate(call.args) if a.value is arg), None)
        if index is None or call.args[index].keyword is not None or index + 1 >= len(method.positional):
            return False
        param = method.positional[index + 1]
        for ret in callees.returns_of(self.model, method):
            value = ret.value
            items = [el.value for el in value.elements] \
                if isinstance(value, (cst.Tuple, cst.List)) else [value]
            if any(isinstance(v, cst.Name) and v.value == param for v in items):
                return True
        return False

    def _device_attribute(self, klass, attr: str) -> bool:
        """Some method stores a compiled call's outputs in `self.<attr>`
        (`logs, self.states = self.train_fn(...)`): from then on it holds device arrays."""
        for method in klass.methods.values():
            if method.is_lambda:
                continue
            for n in _walk(method.node.body):
                if isinstance(n, cst.Assign) and isinstance(n.value, cst.Call) \
                        and any(_targets_attribute(t.target, attr) for t in n.targets) \
                        and self._compiled_or_donating(n.value.func):
                    return True
        return False

    def _alias_reads(self, call: cst.Call, arg: cst.Name, donating: _Donating) -> Iterator[Report]:
        """`old_params = params` before `params, e = update_fn(params, data)`: the alias names
        the donated buffers, and reading it after the call raises (measured, jax 0.10.2 CPU:
        RuntimeError, Array has been deleted)."""
        model = self.model
        on_device = self._on_device(arg) or _carried_output(model, call, arg.value)
        if not on_device:
            return
        for alias in _aliases(model, call, arg.value):
            found = _next_use(model, call, alias)
            if found is None or found[1]:
                continue
            node = found[0]
            yield self.report(node, (
                f"`{alias}` is `{arg.value}`, donated to {donating.label} on line "
                f"{model.line_of(call)}: JAX deleted those buffers, and reading `{alias}` raises "
                f"RuntimeError (Array has been deleted); copy it before the call "
                f"(`{alias} = jax.tree_util.tree_map(jnp.copy, {arg.value})`), or do not donate it"),
                model.function_of(node))

    def _donated_again(self, node: cst.CSTNode, call: cst.Call, donating: _Donating) -> bool:
        """The later read passes the array to the same donating function again (`f_jit(buf)`
        twice): the compiled call rejects the deleted buffer with a ValueError ("Buffer has
        been deleted or donated"), not the RuntimeError other reads raise (measured, jax
        0.10.2 CPU)."""
        parent = self.model.parent(node)
        if isinstance(parent, cst.Arg):
            parent = self.model.parent(parent)
        code = self.model.module.code_for_node
        return isinstance(parent, cst.Call) and parent is not call \
            and code(parent.func) == code(call.func) \
            and any(v is node for v in self._donated_args(parent, donating))

    def _passed_twice(self, call: cst.Call, donating: _Donating) -> Optional[Report]:
        """`f(x, x)` with the first argument donated: the call donates the buffer it also
        reads, and raises (measured: JaxRuntimeError "Attempt to use a buffer that was
        previously donated in the same call")."""
        donated = [a for a in self._donated_args(call, donating) if isinstance(a, cst.Name)]
        for arg in donated:
            if not self._on_device(arg):
                continue
            for other in call.args:
                if other.value is not arg and isinstance(other.value, cst.Name) \
                        and other.value.value == arg.value:
                    return self.report(other.value, (
                        f"`{arg.value}` is donated to {donating.label} and passed again in the same "
                        f"call: the call raises JaxRuntimeError (Attempt to use a buffer that was "
                        f"previously donated in the same call); pass a copy (`jnp.copy({arg.value})`) "
                        f"as the other argument, or do not donate it"),
                        self.model.function_of(call), expected="JaxRuntimeError")
        return None

    # ------------------------------------------------------------ the callee
    def _donating(self, func: cst.BaseExpression) -> Optional[_Donating]:
        model = self.model
        if isinstance(func, cst.Call):
            return self._from_wrapper(func, model.module.code_for_node(func))
        if isinstance(func, cst.Name):
            info = model.resolve_function(func)
            if info is not None:
                return self._from_decorators(info, func.value, 0)
            values = model.assigned_values(func)  # `step = jax.jit(update, donate_argnums=0)`
            if values is not None and len(values) == 1 and isinstance(values[0], cst.Call):
                return self._from_wrapper(values[0], func.value) or self._from_factory(values[0], func.value)
            passed = callees.passed_arguments(model, func)  # `def loop(params, update_fn)`
            if passed:
                return _agreed([self._handed(arg, func.value) for _, arg in passed])
            return None
        if isinstance(func, cst.Attribute):
            info = model.method_of_self(func)
            if info is not None:
                return self._from_decorators(info, model.module.code_for_node(func), 1)
            # `self.step_fn = jax.jit(self.step, donate_argnums=1)` set once, in a method.
            values = model.attribute_assignments(func)
            if values is not None and len(values) == 1 and isinstance(values[0], cst.Call):
                return self._from_wrapper(values[0], model.module.code_for_node(func))
        return None

    def _handed(self, expr: cst.BaseExpression, label: str) -> Optional[_Donating]:
        """What a caller passes as the callable: `jax.jit(f, donate_argnums=0)`, a factory's
        call (`make_update_fn()`), or a name bound to one of those."""
        if isinstance(expr, cst.Call):
            return self._from_wrapper(expr, label) or self._from_factory(expr, label)
        if isinstance(expr, cst.Name) and self.model.function_of(expr) is None:
            found = self._donating(expr)
            return _Donating(label, found.transform, found.argnums, found.argnames, found.info,
                             found.shift) if found is not None else None
        return None

    def _from_factory(self, call: cst.Call, label: str) -> Optional[_Donating]:
        """`make_update_fn()` where the function of this file returns
        `jax.pmap(update, donate_argnums=(0,))` on every path."""
        factory = callees.called_function(self.model, call)
        if factory is None or factory.is_lambda or factory.traced:
            return None
        returns = callees.returns_of(self.model, factory)
        if not returns or not all(isinstance(r.value, cst.Call) for r in returns):
            return None
        return _agreed([self._from_wrapper(r.value, label) for r in returns])

    def _from_wrapper(self, wrapper: cst.Call, label: str) -> Optional[_Donating]:
        model = self.model
        q = model.qualname(wrapper.func)
        if q not in jax_api.DONATING_TRANSFORMS:
            return None
        target = tracing.wrapped_target(wrapper)
        # A bound method (`self.step`): its argnums count the call's arguments, not `self`.
        info = model.resolve_function(target) if isinstance(target, (cst.Name, cst.Lambda)) else None
        if info is not None and not info.is_lambda and info.node.decorators:
            info = None  # a decorator may change the signature
        kwargs = {a.keyword.value: a.value for a in wrapper.args if a.keyword is not None}
        if any(a.star for a in wrapper.args):
            return None
        return self._options(q, kwargs, label, info, 0)

    def _from_decorators(self, info: FunctionInfo, label: str, shift: int) -> Optional[_Donating]:
        if info.is_lambda:
            return None
        for dec in info.node.decorators:
            use = tracing.decorator_transform(self.model, dec.decorator)
            if use is None:
                continue
            node = use.node
            q = self.model.qualname(node.func) if isinstance(node, cst.Call) else None
            if q in tracing.PARTIAL:
                pos = tracing._positional(node)
                q = self.model.qualname(pos[0]) if pos else None
            if q in jax_api.DONATING_TRANSFORMS:
                # The decorated function is the one jit sees only as the innermost decorator.
                if dec is not info.node.decorators[-1]:
                    return None
                return self._options(q, use.kwargs, label, info, shift)
        return None

    def _options(self, q: str, kwargs, label: str, info, shift: int) -> Optional[_Donating]:
        nums_kw, names_kw = jax_api.DONATING_TRANSFORMS[q]
        argnums: list[int] = []
        argnames: list[str] = []
        if nums_kw in kwargs:
            got = tracing._literal_ints(kwargs[nums_kw])
            if got is None:
                return None
            argnums = got
        if names_kw is not None and names_kw in kwargs:
            got = tracing._literal_strs(kwargs[names_kw])
            if got is None:
                return None
            argnames = got
        if not argnums and not argnames:
            return None
        if any(i < 0 for i in argnums):
            return None
        return _Donating(label, q, frozenset(argnums), frozenset(argnames), info, shift)

    def _donated_args(self, call: cst.Call, d: _Donating) -> Iterator[cst.BaseExpression]:
        if any(a.star for a in call.args):
            return
        # jit maps argnums and argnames onto each other through the signature (measured).
        params = d.info.positional if d.info is not None else None
        index = d.shift
        for arg in call.args:
            if arg.keyword is None:
                name = params[index] if params is not None and index < len(params) else None
                if index in d.argnums or (name is not None and name in d.argnames):
                    yield arg.value
                index += 1
            else:
                kw = arg.keyword.value
                pos = params.index(kw) if params is not None and kw in params else None
                if kw in d.argnames or (pos is not None and pos in d.argnums):
                    yield arg.value

    # ------------------------------------------------------------ the argument
    def _on_device(self, name: cst.Name) -> bool:
        """The name holds JAX arrays: a NumPy array would be copied, and only the copy donated."""
        model = self.model
        if model.value(name).array:
            return True
        bindings = model.scope_of(name).lookup(name.value)
        if not bindings:
            return False
        for b in bindings:
            node = b.node
            if b.kind != "assign" or not isinstance(node, cst.Assign) \
                    or not isinstance(node.value, cst.Call):
                return False
            value = node.value
            q = model.qualname(value.func)
            if q in jax_api.DEVICE_PUT_FUNCTIONS or (
                    jax_api.array_module_function(q) and q.startswith("jax.numpy.")):
                continue
            if self._compiled(value.func):
                continue
            return False
        return True

    def _compiled(self, func: cst.BaseExpression) -> bool:
        """A call of a jitted / pmapped callable: its outputs are on the device."""
        model = self.model
        if isinstance(func, cst.Call):
            return rc.compiling_transform(model, func) is not None
        if isinstance(func, cst.Name):
            info = model.resolve_function(func)
            if info is not None:
                return any(c.via == "decorator" and c.transforms and c.transforms[0] in ("jit", "pmap")
                           for c in info.contexts.values())
            bindings = model.scope_of(func).lookup(func.value)
            if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
                return False
            node = bindings[0].node
            return isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) \
                and rc.compiling_transform(model, node.value) is not None
        if isinstance(func, cst.Attribute):
            info = model.method_of_self(func)
            return info is not None and any(
                c.via == "decorator" and c.transforms and c.transforms[0] in ("jit", "pmap")
                for c in info.contexts.values())
        return False


def _agreed(found: list) -> Optional[_Donating]:
    """One donation, when every candidate gives the same (by transform and arguments)."""
    if not found or any(d is None for d in found):
        return None
    kinds = {(d.transform, d.argnums, d.argnames, d.info) for d in found}
    return found[0] if len(kinds) == 1 else None


# ---------------------------------------------------------------- what runs after the call
def _aliases(model, call: cst.Call, name: str) -> list[str]:
    """Names bound to `name` (`old = name`) earlier in the call's block, with neither
    rebound before the call."""
    stmt = _statement(model, call)
    block = model.parent(stmt) if stmt is not None else None
    if not isinstance(block, _BLOCKS):
        return []
    body = list(block.body)
    out: list[str] = []
    rebound: set[str] = set()
    for s in reversed(body[:body.index(stmt)]):
        if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Assign):
            assign = s.body[0]
            target = assign.targets[0].target if len(assign.targets) == 1 else None
            if isinstance(target, cst.Name) and isinstance(assign.value, cst.Name) \
                    and assign.value.value == name and target.value not in rebound \
                    and not _stores(stmt, target.value):
                out.append(target.value)
        if _stores(s, name):
            break
        rebound |= _bound_names(s)
    return out


def _bound_names(stmt: cst.CSTNode) -> set[str]:
    names: set[str] = set()
    for n in _walk(stmt):
        targets = []
        if isinstance(n, cst.Assign):
            targets = [t.target for t in n.targets]
        elif isinstance(n, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            targets = [n.target]
        for t in targets:
            names |= {x.value for x in walk(t) if isinstance(x, cst.Name)}
    return names


def _targets_attribute(target: cst.BaseExpression, attr: str, base: Optional[str] = None) -> bool:
    """`self.<attr>` among an assignment's targets (`logs, self.states = ...`)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_targets_attribute(el.value, attr, base) for el in target.elements)
    if isinstance(target, cst.StarredElement):
        return _targets_attribute(target.value, attr, base)
    return isinstance(target, cst.Attribute) and target.attr.value == attr \
        and isinstance(target.value, cst.Name) and (base is None or target.value.value == base)


def _stores_attribute(func: cst.CSTNode, attr: str, model) -> bool:
    """The function assigns `self.<attr>` somewhere (it may rebind it after the call)."""
    return any(isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and any(
        _targets_attribute(t, attr) for t in (
            [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]))
        for n in _walk(func.body))


def _first_attribute(node: cst.CSTNode, base: str, attr: str):
    """The first occurrence of `base.attr` in execution order: (node, is_store)."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return None
    if isinstance(node, cst.Attribute):
        if node.attr.value == attr and isinstance(node.value, cst.Name) and node.value.value == base:
            return node, False
        if node.attr.value in jax_api.DELETED_ARRAY_SAFE_ATTRIBUTES:
            return None
        return _first_attribute(node.value, base, attr)
    if isinstance(node, cst.Comparison) and any(
            isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
        return None
    if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        if node.value is not None:
            got = _first_attribute(node.value, base, attr)
            if got is not None:
                return got
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        if not isinstance(node, cst.AugAssign) and any(_targets_attribute(t, attr, base) for t in targets):
            return node, True
        return None
    for child in children(node):
        got = _first_attribute(child, base, attr)
        if got is not None:
            return got
    return None


def _carried_output(model, call: cst.Call, name: str) -> bool:
    """`params, e = update_fn(params, data)` in a loop: from the second iteration on,
    `params` holds the compiled call's outputs, which are on the device."""
    small = next((a for a in model.ancestors(call) if isinstance(a, cst.BaseSmallStatement)), None)
    if not isinstance(small, cst.Assign) or small.value is not call \
            or not any(_target_names(t.target, name) for t in small.targets):
        return False
    for anc in model.ancestors(call):
        if isinstance(anc, _NESTED):
            return False
        if isinstance(anc, (cst.For, cst.While)):
            return True
    return False


def _statement(model, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The statement (in a block) that contains `node`."""
    cur = node
    for anc in model.ancestors(node):
        if isinstance(anc, _BLOCKS):
            return cur
        if isinstance(anc, _NESTED):
            return None
        cur = anc
    return None


def _next_use(model, call: cst.Call, name: str):
    """The first read of `name` that runs after `call` before it is rebound:
    (node, False), or (the donated argument, True) when a loop passes it again."""
    stmt = _statement(model, call)
    if stmt is None:
        return None
    small = call
    for anc in model.ancestors(call):
        if isinstance(anc, cst.BaseSmallStatement):
            small = anc
            break
    if _stores(small, name):
        return None  # `state = step(state, batch)`: rebound by the call's own statement
    if isinstance(stmt, cst.SimpleStatementLine):
        rest = list(stmt.body)
        for s in rest[rest.index(small) + 1:] if small in rest else []:
            got = _first(s, name)
            if got is not None:
                return (got[0], False) if not got[1] else None
    cur = stmt
    broke = False
    while True:
        parent = model.parent(cur)
        if parent is None or isinstance(parent, _NESTED):
            return None
        if isinstance(parent, _BLOCKS):
            body = list(parent.body)
            for s in body[body.index(cur) + 1:]:
                got = _first(s, name)
                if got is not None:
                    return (got[0], False) if not got[1] else None
                if _ends(s, (cst.Return, cst.Raise)):
                    return None
                if _ends(s, (cst.Break,)):
                    broke = True
                    break
        elif isinstance(parent, (cst.For, cst.While)) and cur is parent.body:
            if not broke and not _has(parent.body, (cst.Break, cst.Return, cst.Raise)):
                if isinstance(parent, cst.For) and _stores(parent.target, name):
                    return None
                if isinstance(parent, cst.While):
                    got = _first(parent.test, name)
                    if got is not None:
                        return (got[0], False) if not got[1] else None
                got = _before(model, parent.body, call, name)
                if got is not None:
                    return (got[0], False) if not got[1] else None
                return _donated_arg(call, name), True
            broke = False
        cur = parent


def _before(model, body: cst.CSTNode, call: cst.Call, name: str):
    """The first occurrence of `name` in a loop body before `call` (in source order):
    what the next iteration meets first. A store anywhere before the call wins."""
    at = model.order[call]
    for n in _walk(body):
        if model.order.get(n, at) >= at:
            continue
        if isinstance(n, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor,
                          cst.NamedExpr, cst.Del, cst.WithItem)) and _stores(n, name):
            return n, True
        if isinstance(n, (cst.FunctionDef, cst.ClassDef)) and n.name.value == name:
            return n, True
    for stmt in body.body if isinstance(body, cst.IndentedBlock) else [body]:
        if model.order[stmt] >= at or _contains(stmt, call):
            break
        got = _first(stmt, name)
        if got is not None:
            return got
    return None


def _donated_arg(call: cst.Call, name: str) -> cst.CSTNode:
    for a in call.args:
        if isinstance(a.value, cst.Name) and a.value.value == name:
            return a.value
    return call


def _first(node: cst.CSTNode, name: str):
    """The first occurrence of `name` in `node` in execution order: (node, is_store)."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return (node, True) if node.name.value == name else None
    if isinstance(node, cst.Lambda):
        return None
    if isinstance(node, _COMPREHENSIONS):
        comp = node.for_in
        while comp is not None:
            if _stores(comp.target, name):
                return None  # its own variable
            comp = comp.inner_for_in
    if isinstance(node, cst.Name):
        return (node, False) if node.value == name else None
    if isinstance(node, cst.Attribute):
        if node.attr.value in jax_api.DELETED_ARRAY_SAFE_ATTRIBUTES and _leaf_path(node.value, name):
            return None  # `x.shape`, `batch["x"].shape`: the metadata stays
        return _first(node.value, name)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
            and node.func.value in ("len", "isinstance", "type", "id"):
        return None
    if isinstance(node, cst.Comparison) and any(
            isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
        return None
    if isinstance(node, cst.Assign):
        got = _first(node.value, name)
        if got is not None:
            return got
        for t in node.targets:
            got = _target(t.target, name)
            if got is not None:
                return got
        return None
    if isinstance(node, cst.AnnAssign):
        got = _first(node.value, name) if node.value is not None else None
        return got or _target(node.target, name)
    if isinstance(node, cst.AugAssign):
        return _first(node.value, name) or _first(node.target, name)
    if isinstance(node, cst.For):
        got = _first(node.iter, name) or _target(node.target, name)
        if got is not None:
            return got
        return _first(node.body, name) or (_first(node.orelse, name) if node.orelse else None)
    if isinstance(node, cst.Del):
        # `del x` unbinds it; `del batch["mask"]` edits the dict, not a buffer.
        return (node, True) if _stores(node.target, name) else None
    if isinstance(node, cst.WithItem):
        got = _first(node.item, name)
        if got is None and node.asname is not None:
            got = _target(node.asname.name, name)
        return got
    for child in children(node):
        got = _first(child, name)
        if got is not None:
            return got
    return None


def _leaf_path(expr: cst.BaseExpression, name: str) -> bool:
    """`x`, or `x["key"]...`: a leaf of the donated pytree reached through dict keys."""
    while isinstance(expr, cst.Subscript):
        if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index) \
                or not isinstance(expr.slice[0].slice.value, cst.SimpleString):
            return False
        expr = expr.value
    return isinstance(expr, cst.Name) and expr.value == name


def _target(target: cst.BaseExpression, name: str):
    if isinstance(target, cst.Name):
        return (target, True) if target.value == name else None
    if isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            got = _target(el.value, name)
            if got is not None:
                return got
        return None
    if isinstance(target, cst.StarredElement):
        return _target(target.value, name)
    return _first(target, name)  # `d[k] = v` / `o.a = v` read `d` / `o`


def _stores(node: cst.CSTNode, name: str) -> bool:
    """Whether `node` binds `name` (an assignment target, a loop variable, a del)."""
    if isinstance(node, (cst.Name, cst.Tuple, cst.List, cst.StarredElement)):
        return _target_names(node, name)
    for n in _walk(node):
        if isinstance(n, cst.Assign):
            if any(_target_names(t.target, name) for t in n.targets):
                return True
        elif isinstance(n, (cst.AnnAssign, cst.AugAssign)):
            if _target_names(n.target, name):
                return True
        elif isinstance(n, (cst.For, cst.CompFor)):
            if _target_names(n.target, name):
                return True
        elif isinstance(n, cst.NamedExpr):
            if _target_names(n.target, name):
                return True
        elif isinstance(n, cst.Del):
            if _target_names(n.target, name):
                return True
        elif isinstance(n, cst.WithItem) and n.asname is not None:
            if _target_names(n.asname.name, name):
                return True
    return False


def _target_names(target: cst.BaseExpression, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_target_names(el.value, name) for el in target.elements)
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value, name)
    return False


def _walk(node: cst.CSTNode):
    """The nodes of `node`'s own scope: nested functions and classes are not entered."""
    return walk(node, _NESTED)


def _has(node: cst.CSTNode, types) -> bool:
    """Whether `node` holds one of these statements outside nested functions (a `break`
    of an inner loop counts too: the loop may end early either way, nothing is claimed)."""
    return any(isinstance(n, types) for n in _walk(node))


def _ends(stmt: cst.CSTNode, types) -> bool:
    """A simple statement line that ends the block (`return`, `raise`, `break`)."""
    return isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(s, types) for s in stmt.body)


def _contains(node: cst.CSTNode, inner: cst.CSTNode) -> bool:
    return any(n is inner for n in _walk(node))
