"""JAX103: a jitted function reads a module-level name that is rebound later."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.order import attribute_writes, is_wrapper, program_runs, runs_between
from jaxlint.engine.tracing import wrapped_target

from jaxlint.rules._impurity import RUN_TIME_OUTPUTS, trace_time_function, where
from jaxlint.rules.base import Rule

class StaleGlobalRead(Rule):
    code = "JAX103"
    traced_code = True
    name = "stale-global-read"
    summary = "a jitted function reads a global that is rebound later: jit keeps the value it traced with"
    confirm_kind = "stale-global"

    def check(self):
        model = self.model
        writes = self._rebinding_writes()
        attributes = attribute_writes(model)
        if not writes and not attributes and not self._static_self_methods():
            return
        reads = []
        for node in model.nodes(cst.Name):
            name = node.value
            if name not in writes or not self._is_load(node):
                continue
            # jit / pmap / lax bodies are traced once and cached: the value read at
            # trace time is baked into the compiled program.
            func = trace_time_function(model, node, "cached")
            if func is None:
                continue
            bindings = model.scope_of(node).lookup(name)
            if bindings is None or bindings is not model.module_scope.bindings.get(name) \
                    or model.comprehension_variable(node):  # `w` in `[w - dw for w, dw in ...]`
                continue  # a local or closure variable of the same name
            # The jitted function whose trace is cached: a lax body or helper inside
            # it is traced with it; a jitted function defined inside `main()` is its own.
            top = func
            while top.enclosing is not None and any(c.cached for c in top.enclosing.contexts.values()):
                top = top.enclosing
            if isinstance(top.node, cst.FunctionDef):
                reads.append((node, func, top, name, None))
        reads.extend(self._attribute_reads(attributes))
        if not reads:
            return
        names = {(id(top), obj): self._call_names(top, obj) for _, _, top, _, obj in reads}
        runs = program_runs(model, frozenset(n for group in names.values() for n in group), attributes)
        # Where traced code hands values to the host (jax.debug.print), a stale call
        # shows its values even when nothing reads its results.
        used_only = None if any(model.qualname(c.func) in RUN_TIME_OUTPUTS for c in model.nodes(cst.Call)) else model
        for node, func, top, name, obj in reads:
            # Stale only when the program calls the same jitted function, rebinds the
            # global, then calls it again and uses what that call returns: a rebinding
            # before the first call, or with a fresh function (or jax.clear_caches()),
            # traces afresh.
            write = runs_between(runs, names[(id(top), obj)], name, top.node, used_only)
            if write is None:
                continue
            if isinstance(node, cst.Attribute):
                read = self.source(node)
                msg = (f"`{read}` read {where(func)} is baked in at trace time: after `{name}` is "
                       f"set on line {model.line_of(write.node)}, later calls of the same jitted "
                       f"function still use the old value; pass `{read}` as an argument instead")
                yield self.report(node, msg, func, global_name=name)
                continue
            msg = (f"global `{name}` read {where(func)} is baked in at trace time: after `{name}` "
                   f"is rebound on line {model.line_of(write.node)}, later calls still use the old "
                   f"value; pass `{name}` as an argument instead")
            yield self.report(node, msg, func, global_name=name)

    def _rebinding_writes(self) -> dict[str, list[cst.CSTNode]]:
        """Module-level names that get a new value while the program runs."""
        model = self.model
        out: dict[str, list[cst.CSTNode]] = {}
        for name, nodes in model.global_writes.items():
            bindings = model.module_scope.bindings.get(name) or []
            # A function, class or module name: rebinding them (f = jax.jit(f),
            # try: import x except ImportError: x = None) does not go stale. A name that
            # holds data first and becomes a function only later (a notebook's `g = 10.`
            # in one cell, `def g` many cells on) is data until then.
            later = [b.order for b in bindings if b.kind in ("def", "class", "import")]
            if later and bindings[0].kind in ("def", "class", "import"):
                continue
            order = {id(b.node): b.order for b in bindings}
            data = [n for n in nodes if not later or order.get(id(n), min(later)) < min(later)]
            if data:
                out[name] = data
        return out

    def _attribute_reads(self, attributes):
        """Reads of `obj.name` that a jitted trace bakes in, where `obj.name` is written
        somewhere: `cfg.scale` of a module-level `cfg`, or `self.mul` in a method jitted
        as a bound method of a module-level object (`calc = jit(c.calc)`). Yields
        (node, function, jitted function, "obj.name", obj or None)."""
        model = self.model
        if not attributes and not self._static_self_methods():
            return
        static_self = self._static_self_methods()
        for node in model.nodes(cst.Attribute):
            if not isinstance(node.value, cst.Name) or not self._is_load(node.value):
                continue
            func = trace_time_function(model, node, "cached")
            if func is None:
                continue
            top = func
            while top.enclosing is not None and any(c.cached for c in top.enclosing.contexts.values()):
                top = top.enclosing
            if not isinstance(top.node, cst.FunctionDef):
                continue
            if not self._is_load(node) and not isinstance(model.parent(node), cst.AugAssign):
                continue  # `self.param = ...` stores: the trace reads no old value there
            attr = node.attr.value
            obj = node.value.value
            if top in static_self and model.class_of_self(node.value) is not None:
                # `self.fn(x)` in a method jitted with `self` static: the cache keeps the
                # instance as its key, so a change in place finds the old trace again.
                if not any(attr in k.methods for k in (top.klass, *top.klass.relatives)):
                    for owner in self._instances(top.klass):
                        yield node, func, top, f"{owner}.{attr}", owner
                continue
            if self._is_called(node):
                continue
            bindings = model.scope_of(node.value).lookup(obj)
            if bindings is not None and bindings is model.module_scope.bindings.get(obj):
                if f"{obj}.{attr}" in attributes:
                    yield node, func, top, f"{obj}.{attr}", None
                continue
            if model.class_of_self(node.value) is None or top.klass is None:
                continue
            # `self.mul` in a method jitted as `jit(c.calc)`: `self` is `c`.
            for owner in self._bound_objects(top):
                if f"{owner}.{attr}" in attributes:
                    yield node, func, top, f"{owner}.{attr}", owner

    def _static_self_methods(self) -> set:
        """Methods jitted with `self` static (`@partial(jax.jit, static_argnums=0)`) of a
        class of this file whose instances can be changed in place (`_plain_class`)."""
        if not hasattr(self, "_static_self"):
            self._static_self = set()
            for info in self.model.functions:
                klass = info.klass
                if klass is None or not info.positional or not any(
                        c.cached and info.positional[0] in c.static for c in info.contexts.values()):
                    continue
                if all(_plain_class(k) for k in (klass, *klass.relatives)):
                    self._static_self.add(info)
        return self._static_self

    def _bound_objects(self, top) -> list[str]:
        """Module-level objects whose bound method `top` is jitted as: `c` in `jit(c.calc)`."""
        model = self.model
        out = []
        for origin, ctx in top.contexts.items():
            if ctx.via != "wrapper" or not ctx.cached or not isinstance(origin, cst.Call):
                continue
            target = wrapped_target(origin)
            while isinstance(target, cst.Call) and is_wrapper(model, target):
                target = wrapped_target(target)
            if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                    and target.attr.value == top.name):
                continue
            obj = target.value.value
            bindings = model.scope_of(target.value).lookup(obj)
            if bindings is not None and bindings is model.module_scope.bindings.get(obj):
                out.append(obj)
            elif self._stored_on_self(origin) and model.class_of_self(target.value) is not None \
                    and (model.class_of_self(target.value) is top.klass
                         or top.klass in model.class_of_self(target.value).relatives):
                # `self.forward = jax.jit(self.apply)`: each module-level instance holds its own.
                out.extend(self._instances(top.klass))
        return out

    def _stored_on_self(self, origin: cst.Call):
        """`forward` in `self.forward = <origin>`, or None."""
        parent = self.model.parent(origin)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                    and self.model.class_of_self(target.value) is not None:
                return target.attr.value
        return None

    def _instances(self, klass) -> list[str]:
        """Module-level names bound once, to `Cls(...)` of this class."""
        model = self.model
        out = []
        for name, bindings in model.module_scope.bindings.items():
            if len(bindings) != 1 or bindings[0].kind != "assign":
                continue
            node = bindings[0].node
            if isinstance(node, cst.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0].target, cst.Name) and isinstance(node.value, cst.Call) \
                    and model.resolve_class(node.value.func) is klass:
                out.append(name)
        return out

    def _is_called(self, node: cst.Attribute) -> bool:
        parent = self.model.parent(node)
        return isinstance(parent, cst.Call) and parent.func is node

    def _call_names(self, top, obj=None) -> frozenset[str]:
        """The names the jitted function is called by: its own, and module-level names
        bound to a transform of it (`step = jax.jit(train_step)`; with `obj`, of the
        bound method: `calc = jit(c.calc)`)."""
        model = self.model
        names = set() if obj is not None else {top.name}
        if obj is not None and top in self._static_self_methods():
            names.add(f"{obj}.{top.name}")  # `model.wrapper(x)`
        if obj is not None:
            # `obj.forward(x)` where a method stored `self.forward = jax.jit(self.<top>)`.
            for origin, ctx in top.contexts.items():
                if ctx.via == "wrapper" and isinstance(origin, cst.Call):
                    attr = self._stored_on_self(origin)
                    if attr is not None:
                        names.add(f"{obj}.{attr}")
        for stmt in model.nodes(cst.Assign):
            if model.function_of(stmt) is None and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0].target, cst.Name) and self._wraps(stmt.value, top.name, obj):
                names.add(stmt.targets[0].target.value)
        return frozenset(names)

    def _wraps(self, value: cst.BaseExpression, name: str, obj=None) -> bool:
        """`jax.jit(name)`, `jax.jit(jax.grad(name))`, `partial(name, ...)`: the function, wrapped
        (with `obj`: the bound method `obj.name`)."""
        while isinstance(value, cst.Call) and is_wrapper(self.model, value) and value.args:
            value = value.args[0].value
        if obj is not None:
            return isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) \
                and value.value.value == obj and value.attr.value == name
        return isinstance(value, cst.Name) and value.value == name

    def _is_load(self, node: cst.Name) -> bool:
        model = self.model
        parent = model.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return False
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return False
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Param, cst.ImportAlias,
                               cst.AsName, cst.NameItem)):
            return False
        child = node
        for anc in model.ancestors(node):
            target = getattr(anc, "target", None)
            if isinstance(anc, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For,
                                cst.CompFor, cst.NamedExpr)) and target is child:
                # `X[i] = v` and `X.a = v` read X; only a bare or unpacked name is a store.
                return False
            if not isinstance(anc, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
                return True
            child = anc
        return True


def _plain_class(klass) -> bool:
    """A class of this file whose instances can be changed in place: no pytree, frozen
    dataclass or decorator, and no base class from outside the file. Its own `__hash__`
    does not help: jit's cache keeps the instance itself as the key, so after an in-place
    change the old entry matches it again (checked under jax 0.10.2)."""
    node = klass.node
    if klass.pytree or klass.library or klass.unhashable or klass.frozen_dataclass or node.decorators:
        return False
    local = {k.name for k in klass.relatives}
    return all(isinstance(base.value, cst.Name) and (base.value.value in local or base.value.value == "object")
               for base in node.bases)
