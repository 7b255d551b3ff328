"""JAX105: a Python iterator from outside the trace, consumed inside a jitted function or lax body."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.callees import argument_for, call_sites, field_values
from jaxlint.engine.functions import ViaKind
from jaxlint.engine.model import walk
from jaxlint.engine.values import UNKNOWN
from jaxlint.rules._impurity import outlives_trace, trace_time_function, where
from jaxlint.rules.base import Rule

#: Calls that return a one-shot iterator (consumed as it is read).
_ITERATOR_FACTORIES = frozenset({
    "builtins.iter", "builtins.map", "builtins.filter", "builtins.zip", "builtins.enumerate",
    "builtins.reversed",
})
_ITERATOR_MODULES = ("itertools",)


class IteratorInTracedBody(Rule):
    code = "JAX105"
    traced_code = True
    name = "iterator-in-traced-body"
    summary = "an outside iterator consumed in a jitted function or lax body advances only at trace time"
    confirm_kind = "iterator"

    def check(self):
        model = self.model
        self._given_reported: set[int] = set()
        for call in model.nodes(cst.Call):
            it = self._next_target(call)
            if it is not None:
                yield from self._flag(call, it, f"`{self.source(call)}`")
            elif model.qualname(call.func) == "builtins.next" and call.args \
                    and _iter_of_name(model, call.args[0].value) is not None:
                # `next(iter(loader))`: a fresh iterator, unless `loader` is its own.
                func = trace_time_function(model, call, "cached")
                if func is not None and self._stateful_argument(call.args[0].value.args[0].value, func, True):
                    yield from self._flag(call, call.args[0].value.args[0].value, f"`{self.source(call)}`")
            elif model.qualname(call.func) == "builtins.next" and call.args:
                # `next(self._iterator)`: an object's field that every assignment fills with
                # an iterator (`self._iterator = gen()`) advances only while tracing, as a name does.
                held = call.args[0].value
                if isinstance(held, cst.Attribute) and isinstance(held.value, cst.Name):
                    values = field_values(model, held)
                    if values and all(self._makes_iterator(v) for v in values):
                        yield from self._flag(call, held.value, f"`{self.source(call)}`", held_by=True)
        for loop in model.nodes(cst.For):
            if isinstance(loop.iter, cst.Name) and self._is_iterator(loop.iter):
                yield from self._flag(loop.iter, loop.iter, f"`for` over iterator `{loop.iter.value}`")

    def _next_target(self, call: cst.Call) -> Optional[cst.Name]:
        q = self.model.qualname(call.func)
        if q == "builtins.next" and call.args and isinstance(call.args[0].value, cst.Name):
            return call.args[0].value
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "__next__" \
                and isinstance(func.value, cst.Name):
            return func.value
        return None

    def _flag(self, node, it: cst.Name, what: str, held_by: bool = False):
        """`held_by`: `it` is the object whose field holds the iterator."""
        model = self.model
        # jit / pmap / lax bodies run the Python code once, when traced.
        func = trace_time_function(model, node, "cached")
        given = self._iterator_given(it, func) if func is not None and not held_by else None
        if given is not None:
            if id(given) in self._given_reported:
                return  # one finding per call: the other branch reads the same operand
            self._given_reported.add(id(given))
            # An iterator handed to the trace as an argument or operand: JAX flattens it
            # as a leaf and refuses it before the body runs (jax 0.10.2: "Argument ... of
            # type <class 'range_iterator'> is not a valid JAX type").
            desc = func.transform_description()
            to = desc if desc.startswith("lax.") else f"a function under {desc or 'a JAX transform'}"
            msg = (f"`{self.source(given)}` passed to {to} is a Python iterator (read by {what} on "
                   f"line {model.line_of(node)}): an iterator is not a valid JAX type, so the call "
                   f"raises TypeError before the body runs; pass an array and index it instead")
            yield self.report(given, msg, model.function_of(given), expected="TypeError",
                              kind="trace-error")
            return
        if func is None or (outlives_trace(model, it, func) is None
                            and not (held_by and _passed_in(model, it, func))
                            and not self._stateful_argument(it, func)):
            return
        msg = (f"{what} {where(func)} runs only while tracing: every iteration and every later "
               f"call reuse the items read then; index an array instead (xs[i] in a fori_loop "
               f"body) or pass the items in as arguments")
        yield self.report(node, msg, func, iterator=it.value)

    def _iterator_given(self, it: cst.Name, func) -> Optional[cst.BaseExpression]:
        """The argument that hands a Python iterator to the parameter `it` of a traced
        function: a lax body's operand (`lax.cond(p, f, g, iter(xs))`, a fori_loop's
        `init_val`), or what a call of a jitted function passes to a traced parameter."""
        model = self.model
        bindings = model.scope_of(it).lookup(it.value) or []
        if it.value not in func.positional or len(bindings) != 1 or bindings[0].kind != "param" \
                or model.function_of(it) is not func:
            return None
        index = func.positional.index(it.value)
        for origin, ctx in func.contexts.items():
            if ctx.via is ViaKind.BODY and isinstance(origin, tuple):
                call, target = origin
                if not (target is func.node or model.resolve_function(target) is func):
                    continue  # a partial or rewrapped body: its parameters shift
                arg = _body_argument(model, call, index)
            elif ctx.via in (ViaKind.DECORATOR, ViaKind.WRAPPER) and it.value not in ctx.static:
                passed = (argument_for(c, func, it.value, shift) for c, shift in call_sites(model, func))
                arg = next((a for a in passed if a is not None and self._is_iterator_expression(a)), None)
            else:
                continue
            if arg is not None and self._is_iterator_expression(arg):
                return arg
        return None

    def _is_iterator_expression(self, expr) -> bool:
        return self._makes_iterator(expr) or (isinstance(expr, cst.Name) and self._is_iterator(expr))

    def _stateful_argument(self, it: cst.Name, func, through_iter: bool = False) -> bool:
        """`next(loader)` or `next(iter(loader))` in a jitted function, `loader` a (static)
        parameter whose class advances its own state in `__next__`: jit reuses the trace
        for the same object, so next() ran once, at trace time, and every call gets the
        batch read then."""
        model = self.model
        source = it
        if not through_iter:
            bindings = model.scope_of(it).lookup(it.value) or []
            inner = [_iter_of_name(model, getattr(b.node, "value", None)) if b.kind == "assign"
                     and isinstance(b.node, cst.Assign) else None for b in bindings]
            if inner and all(n is not None for n in inner):
                source, through_iter = inner[0], True
        if source.value not in func.positional + func.kwonly:
            return False
        classes = {model.value(source).cls}
        if None in classes:
            # A static argument: what every call of this file passes.
            classes = {dict(values).get(source.value, UNKNOWN).cls for values in func.sites.values()}
        if len(classes) != 1 or None in classes:
            return False
        cls = classes.pop()
        return not cls.pytree and _advances_itself(cls, through_iter)

    def _is_iterator(self, name: cst.Name) -> bool:
        """A name bound only to iter(...), a generator expression or a generator function call."""
        model = self.model
        bindings = model.scope_of(name).lookup(name.value)
        if not bindings:
            return False
        for b in bindings:
            value = getattr(b.node, "value", None)
            if b.kind != "assign" or not isinstance(b.node, (cst.Assign, cst.AnnAssign)) \
                    or not self._makes_iterator(value):
                return False
        return True

    def _makes_iterator(self, value) -> bool:
        model = self.model
        if isinstance(value, cst.GeneratorExp):
            return True
        if not isinstance(value, cst.Call):
            return False
        q = model.qualname(value.func)
        if q in _ITERATOR_FACTORIES or (q and q.split(".")[0] in _ITERATOR_MODULES):
            return True
        callee = model.resolve_function(value.func)
        return callee is not None and _is_generator(model, callee)


def _body_argument(model, call: cst.Call, index: int) -> Optional[cst.BaseExpression]:
    """The argument of a lax control-flow call that its body's positional parameter
    `index` receives (BODY_OPERANDS_FROM, BODY_PARAMETER_SOURCES), or None."""
    if any(a.star for a in call.args):
        return None
    q = model.qualname(call.func)
    positional = [a.value for a in call.args if a.keyword is None]
    if q in jax_api.BODY_OPERANDS_FROM:
        at = jax_api.BODY_OPERANDS_FROM[q] + index
        return positional[at] if at < len(positional) else None
    sources = jax_api.BODY_PARAMETER_SOURCES.get(q)
    if sources is None or index >= len(sources) or sources[index] is None:
        return None
    position, keyword = sources[index]
    if position < len(positional):
        return positional[position]
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)


def _is_generator(model, info) -> bool:
    for y in model.nodes(cst.Yield):
        if model.function_of(y) is info:
            return True
    return False


def _passed_in(model, name: cst.Name, func) -> bool:
    """`name` is a parameter of `func`, traced on its own (not only as a helper of another
    trace): the object was made by the caller, outside the trace."""
    bindings = model.scope_of(name).lookup(name.value) or []
    return name.value in func.positional + func.kwonly and len(bindings) == 1 \
        and bindings[0].kind == "param" and any(c.via != "helper" for c in func.contexts.values())


def _iter_of_name(model, expr) -> "cst.Name | None":
    """`loader` in `iter(loader)`."""
    if isinstance(expr, cst.Call) and model.qualname(expr.func) == "builtins.iter" \
            and len(expr.args) == 1 and isinstance(expr.args[0].value, cst.Name):
        return expr.args[0].value
    return None


def _advances_itself(cls, through_iter: bool) -> bool:
    """The class's `__next__` stores into `self` (and, read through iter(), its
    `__iter__` returns `self`): its instances are iterators with state."""
    nxt = cls.methods.get("__next__")
    if nxt is None:
        return False
    if through_iter:
        it = cls.methods.get("__iter__")
        returns = [n for n in walk(it.node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
                   if isinstance(n, cst.Return)] if it is not None else []
        if not returns or not all(isinstance(r.value, cst.Name) and r.value.value == "self" for r in returns):
            return False
    for node in walk(nxt.node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        targets = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        for t in targets:
            elements = [e.value for e in t.elements] if isinstance(t, (cst.Tuple, cst.List)) else [t]
            if any(isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and e.value.value == "self"
                   for e in elements):
                return True
    return False
