"""JAX103: a jitted function reads a module-level name that is rebound later."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.model import walk

from jaxlint.rules._impurity import trace_time_function, where
from jaxlint.rules.base import Rule

# Module-level statements that only choose an initial value (`if cond: X = 1
# else: X = 2`, `try: X = f() except: X = None`) are not later rebindings.
_CONDITIONAL_INIT = (cst.If, cst.Try, cst.TryStar, cst.With, cst.Match)


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
            if bindings is None or bindings is not model.module_scope.bindings.get(name):
                continue  # a local or closure variable of the same name
            top = func
            while top.enclosing is not None:
                top = top.enclosing
            later = [w for w in writes[name] if self._after(w, top)]
            if not later:
                continue
            module_writes = [w for w in later if model.function_of(w) is None]
            if len(module_writes) == len(later) and not any(
                    self._stale_in_module_order(top, w) for w in module_writes):
                continue
            msg = (f"global `{name}` read {where(func)} is baked in at trace time: after `{name}` "
                   f"is rebound, later calls still use the old value; pass `{name}` as an "
                   f"argument instead")
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
            kept = [n for n in nodes if model.function_of(n) is not None or not self._conditional(n)]
            if kept:
                out[name] = kept
        return out

    def _stale_in_module_order(self, top, write) -> bool:
        """A module-level rebinding goes stale only if the jitted function runs (is
        traced) before it and runs again after it, as the same function object.

        Scripts and notebooks often rebind a global before the only call, or rebind
        it and redefine the jitted function in the same cell: both trace afresh.
        """
        model = self.model
        w = model.order[write]
        runs = self._run_orders(top)
        if runs is None:
            return False  # how the function is called is not known: stay silent
        before = any(model.order[top.node] < r < w for r, _ in runs)
        after = any(r > w and not self._redefined(top, w, r, name) for r, name in runs)
        return before and after

    def _run_orders(self, top):
        """(order, name) of each module-level statement that calls the function,
        directly, through a name bound to a transform of it, or through a top-level
        function that uses it. None if it has no name to follow."""
        model = self.model
        if not isinstance(top.node, cst.FunctionDef):
            return None
        names = {top.name}
        for stmt in model.nodes(cst.Assign):
            if model.function_of(stmt) is None and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0].target, cst.Name) \
                    and any(isinstance(n, cst.Name) and n.value == top.name
                            for n in walk(stmt.value)):
                names.add(stmt.targets[0].target.value)
        users = set()
        runs = []
        for node in model.nodes(cst.Name):
            if node.value not in names or not self._is_load(node):
                continue
            f = model.function_of(node)
            if f is None:
                runs.append((model.order[node], node.value))
                continue
            while f.enclosing is not None:
                f = f.enclosing
            if f is not top and isinstance(f.node, cst.FunctionDef):
                users.add(f.name)
        if users:
            for node in model.nodes(cst.Name):
                if node.value in users and model.function_of(node) is None and self._is_load(node):
                    runs.append((model.order[node], node.value))
        return runs

    def _redefined(self, top, after: int, before: int, name: str) -> bool:
        """Whether `name` is bound anew between two points: a new function is traced."""
        for b in self.model.module_scope.bindings.get(name, ()):
            if b.node is not top.node and after < b.order < before:
                return True
        return False

    def _conditional(self, node) -> bool:
        return any(isinstance(a, _CONDITIONAL_INIT) for a in self.model.ancestors(node))

    def _after(self, write, func) -> bool:
        """A `global` write in a function, or a module-level rebinding after `func` exists."""
        model = self.model
        if model.function_of(write) is not None:
            return True
        return model.order[write] > model.order[func.node]

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
