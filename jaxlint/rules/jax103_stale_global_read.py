"""JAX103: a jitted function reads a module-level name that is rebound later."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.order import is_wrapper, program_runs, runs_between

from jaxlint.rules._impurity import trace_time_function, where
from jaxlint.rules.base import Rule

class StaleGlobalRead(Rule):
    code = "JAX103"
    name = "stale-global-read"
    summary = "a jitted function reads a global that is rebound later: jit keeps the value it traced with"
    confirm_kind = "stale-global"

    def check(self):
        model = self.model
        writes = self._rebinding_writes()
        if not writes:
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
                reads.append((node, func, top))
        if not reads:
            return
        names = {id(top): self._call_names(top) for _, _, top in reads}
        runs = program_runs(model, frozenset(n for group in names.values() for n in group))
        for node, func, top in reads:
            # Stale only when the program calls the same jitted function, rebinds the
            # global, then calls it again: a rebinding before the first call, or with
            # a fresh function (or jax.clear_caches()), traces afresh.
            write = runs_between(runs, names[id(top)], node.value, top.node)
            if write is None:
                continue
            name = node.value
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
            # try: import x except ImportError: x = None) does not go stale.
            if any(b.kind in ("def", "class", "import") for b in bindings):
                continue
            out[name] = nodes
        return out

    def _call_names(self, top) -> frozenset[str]:
        """The names the jitted function is called by: its own, and module-level names
        bound to a transform of it (`step = jax.jit(train_step)`)."""
        model = self.model
        names = {top.name}
        for stmt in model.nodes(cst.Assign):
            if model.function_of(stmt) is None and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0].target, cst.Name) and self._wraps(stmt.value, top.name):
                names.add(stmt.targets[0].target.value)
        return frozenset(names)

    def _wraps(self, value: cst.BaseExpression, name: str) -> bool:
        """`jax.jit(name)`, `jax.jit(jax.grad(name))`, `partial(name, ...)`: the function, wrapped."""
        while isinstance(value, cst.Call) and is_wrapper(self.model, value) and value.args:
            value = value.args[0].value
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
