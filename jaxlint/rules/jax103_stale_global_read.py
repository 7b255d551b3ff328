"""JAX103: a jitted function reads a module-level name that is rebound later."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.model import children

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


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    stack = [tree]
    while stack:
        cur = stack.pop()
        if cur is node:
            return True
        stack.extend(children(cur))
    return False

