"""The model of one file that every rule reads.

`FileModel.build(module)` walks the libcst tree once to find scopes, imports,
functions and classes, and to index nodes by type. It then works out which
functions are traced, by which transform and with which static arguments
(`jaxlint.engine.tracing`), and runs the value analysis
(`jaxlint.engine.evaluate`) that marks each expression traced, static or unknown.
"""

from __future__ import annotations

import bisect

import re
from collections import defaultdict
from typing import Iterator, Optional

import libcst as cst

from jaxlint.engine.functions import ClassInfo, FunctionInfo, build_function_info
from jaxlint.engine.scopes import Binding, BindingKind, Scope, ScopeKind, dotted_name, target_names
from jaxlint.engine.values import UNKNOWN, Value

# The first line of each code cell, when a module is a notebook's or cell script's cells.
CellStarts = Optional[tuple[int, ...]]

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_LOOPS = (cst.For, cst.While)

# libcst's `node.children` runs a visitor per node and dominates the cost of a walk.
# We read the dataclass fields directly, skipping whitespace, punctuation and
# operators (rules read `node.operator` from its parent), in source order.
_TRIVIA_FIELDS = frozenset({
    "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators", "header",
    "footer", "trailing_whitespace", "newline", "equal", "colon", "dot", "operator", "lbracket",
    "rbracket", "lbrace", "rbrace", "asynchronous", "star", "whitespace", "lines_after",
})
_SOURCE_ORDER = {
    cst.Arg: ("keyword", "value"),
    cst.FunctionDef: ("decorators", "name", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "bases", "keywords", "body"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.Parameters: ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"),
}
_FIELDS: dict[type, tuple[str, ...]] = {}
# The walk records the scope of these nodes, and looks further only at the nodes that
# define or bind something (the types its `if` chain names).
_SCOPED_TYPES = frozenset({cst.Attribute, cst.Call, cst.Subscript})
_WALK_TYPES = frozenset({
    cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Import, cst.ImportFrom, cst.Assign, cst.AnnAssign,
    cst.AugAssign, cst.For, cst.WithItem, cst.NamedExpr, cst.ExceptHandler, cst.Global, cst.Nonlocal,
})


def _child_fields(t: type) -> tuple[str, ...]:
    fields = _FIELDS.get(t)
    if fields is None:
        import dataclasses

        names = [f.name for f in dataclasses.fields(t)
                 if f.name not in _TRIVIA_FIELDS and not f.name.startswith("whitespace")]
        order = _SOURCE_ORDER.get(t)
        if order:
            names = [n for n in order if n in names] + [n for n in names if n not in order]
        fields = _FIELDS[t] = tuple(names)
    return fields


_NODE_TYPES: dict[type, bool] = {}


def _is_node_type(t: type) -> bool:
    """`issubclass(t, cst.CSTNode)`, cached: CSTNode is an ABC, and `isinstance` against
    it costs an ABC check on every call (a third of a large file's model build)."""
    known = _NODE_TYPES.get(t)
    if known is None:
        known = _NODE_TYPES[t] = issubclass(t, cst.CSTNode)
    return known


def children(node: cst.CSTNode) -> list:
    """The child nodes that matter for analysis, in source order."""
    # Called once per node of every walk: the caches are read inline, not through calls.
    fields = _FIELDS.get(type(node))
    if fields is None:
        fields = _child_fields(type(node))
    known = _NODE_TYPES
    out = []
    for name in fields:
        v = getattr(node, name)
        t = type(v)
        if t is tuple or t is list:
            for x in v:
                is_node = known.get(type(x))
                if is_node is None:
                    is_node = _is_node_type(type(x))
                if is_node:
                    out.append(x)
        else:
            is_node = known.get(t)
            if is_node is None:
                is_node = _is_node_type(t)
            if is_node:
                out.append(v)
    return out


def walk(node: cst.CSTNode, prune: tuple = ()) -> Iterator[cst.CSTNode]:
    """`node` and every node under it (iteratively: deep trees do not recurse). Nodes
    of the `prune` types below `node` are yielded, but not entered (nested scopes)."""
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        if prune and cur is not node and isinstance(cur, prune):
            continue
        stack.extend(children(cur))


class FileModel:
    def __init__(self, module: cst.Module, path: str = "<string>",
                 extra_transforms: Optional[dict] = None, cells: CellStarts = None):
        self.module = module
        self.path = path
        # The module is the code cells of a notebook or a cell script, which an IPython
        # kernel runs in order: a cell shows its last expression's value, and its globals
        # are read by later cells, not imported by other modules.
        self.cells = cells is not None or path.endswith(".ipynb")
        # The first line of each cell, where the caller knows them.
        self.cell_starts = cells
        self.extra_transforms = extra_transforms or {}
        self.module_scope = Scope(ScopeKind.MODULE, None)
        self.functions: list[FunctionInfo] = []
        self.classes: list[ClassInfo] = []
        self._function_of_node: dict[cst.CSTNode, FunctionInfo] = {}
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self._scope_of: dict[cst.CSTNode, Scope] = {}
        self._index: dict[type, list[cst.CSTNode]] = defaultdict(list)
        self._enclosing: dict[cst.CSTNode, Optional[FunctionInfo]] = {}
        self.order: dict[cst.CSTNode, int] = {}
        self.values: dict[cst.CSTNode, Value] = {}
        self._qualnames: dict[cst.CSTNode, Optional[str]] = {}
        self._functions_named: dict[cst.Name, Optional[FunctionInfo]] = {}
        self._positions = None
        self.module_env: dict[str, Value] = {}
        # Module-level names rebound after their first binding, or written via `global`.
        self.global_writes: dict[str, list[cst.CSTNode]] = defaultdict(list)
        # Attribute names written on something other than a method's `self` ("*": setattr).
        self.foreign_attribute_writes: set[str] = set()
        # Pytree classes of libraries (flax's TrainState), made on first use.
        self.library_classes: dict = {}
        # The source text and Python's ast of it, when the caller has them: top-level
        # statements' line numbers come from the ast instead of printing every statement.
        self.text: Optional[str] = None
        self.ast_tree = None
        # Maps a line of this module to the line of the document it was cut from, for
        # messages (`jaxlint.incremental` analyses some of a document's statements).
        self.document_line = None
        # Events of the program-order walk (engine/order.py), which stops at _MAX_EVENTS.
        self.program_events = 0
        # The arms of branches no trace of their function takes (engine/live_branches.py),
        # by function: an `if` body or `else`, a conditional expression's side.
        self.untraced_arms: dict[FunctionInfo, set[cst.CSTNode]] = {}
        self._counter = 0

    # ------------------------------------------------------------------ build
    @classmethod
    def build(cls, module: cst.Module, path: str = "<string>",
              extra_transforms: Optional[dict] = None, cells: CellStarts = None) -> "FileModel":
        from jaxlint.engine import classes, evaluate, tracing

        model = cls(module, path, extra_transforms, cells)
        model._walk_module()
        classes.read_classes(model)
        tracing.find_traced_functions(model)
        evaluate.analyse(model)
        return model

    def _walk_module(self) -> None:
        stack: list[tuple[cst.CSTNode, Scope, Optional[FunctionInfo], Optional[ClassInfo]]] = []
        for stmt in reversed(self.module.body):
            self.parents[stmt] = self.module
            stack.append((stmt, self.module_scope, None, None))
        index = self._index
        parents = self.parents
        scope_of = self._scope_of
        enclosing = self._enclosing
        order = self.order
        name_type, scoped, special = cst.Name, _SCOPED_TYPES, _WALK_TYPES
        while stack:
            node, scope, func, klass = stack.pop()
            self._counter += 1
            order[node] = self._counter
            t = type(node)
            index[t].append(node)
            enclosing[node] = func
            if t is name_type:
                scope_of[node] = scope
                continue
            if t in scoped:
                scope_of[node] = scope
            if t not in special:
                # Most nodes bind nothing: straight to their children.
                for child in reversed(children(node)):
                    parents[child] = node
                    stack.append((child, scope, func, klass))
                continue
            children_scope, children_func, children_klass = scope, func, klass
            if t is cst.FunctionDef or t is cst.Lambda:
                info = self._define_function(node, scope, func, klass)
                new_scope = info.scope
                # Decorators, defaults and annotations belong to the outer scope.
                for child in reversed(children(node)):
                    parents[child] = node
                    if child is node.body:
                        stack.append((child, new_scope, info, None))
                    elif t is cst.FunctionDef and child is node.params:
                        stack.append((child, new_scope, info, None))
                    else:
                        stack.append((child, scope, func, klass))
                continue
            if t is cst.ClassDef:
                cinfo = ClassInfo(node.name.value, node)
                self.classes.append(cinfo)
                scope.bind(node.name.value, Binding(BindingKind.CLASS, node, self._counter, klass=cinfo))
                class_scope = Scope(ScopeKind.CLASS, scope)
                for child in reversed(children(node)):
                    parents[child] = node
                    if child is node.body:
                        stack.append((child, class_scope, func, cinfo))
                    else:
                        stack.append((child, scope, func, klass))
                continue
            if t is cst.Import or t is cst.ImportFrom:
                self._bind_import(node, scope)
            elif t is cst.Assign:
                for target in node.targets:
                    self._bind_targets(target.target, scope, node)
            elif t is cst.AnnAssign or t is cst.AugAssign:
                if node.value is not None or t is cst.AugAssign:
                    self._bind_targets(node.target, scope, node)
            elif t is cst.For:
                self._bind_targets(node.target, scope, node)
            elif t is cst.WithItem:
                if node.asname is not None:
                    self._bind_targets(node.asname.name, scope, node)
            elif t is cst.NamedExpr:
                self._bind_targets(node.target, scope, node)
            elif t is cst.ExceptHandler:
                if node.name is not None:
                    self._bind_targets(node.name.name, scope, node)
            elif t is cst.Global:
                for item in node.names:
                    scope.globals.add(item.name.value)
            elif t is cst.Nonlocal:
                for item in node.names:
                    scope.nonlocals.add(item.name.value)
            elif t is cst.CompFor:
                # Comprehension variables: bound in the enclosing scope, an
                # approximation that never makes a JAX import look shadowed.
                pass
            for child in reversed(children(node)):
                parents[child] = node
                stack.append((child, children_scope, children_func, children_klass))

    def _define_function(self, node, scope: Scope, func, klass) -> FunctionInfo:
        if isinstance(node, cst.FunctionDef):
            name = node.name.value
        else:
            name = "<lambda>"
        prefix = ""
        if func is not None:
            prefix = func.qualname + ".<locals>."
        elif klass is not None:
            prefix = klass.name + "."
        new_scope = Scope(ScopeKind.FUNCTION, scope)
        info = build_function_info(node, name, prefix + name, new_scope, func,
                                   klass if func is None or klass is not None else None,
                                   self._counter)
        self.functions.append(info)
        self._function_of_node[node] = info
        if func is not None:
            func.children.append(info)
        for p in info.all_params:
            new_scope.bind(p, Binding(BindingKind.PARAM, node, self._counter))
        if isinstance(node, cst.FunctionDef):
            scope.bind(name, Binding(BindingKind.DEF, node, self._counter, function=info))
            if klass is not None and func is None:
                klass.methods[name] = info
        return info

    def _bind_import(self, node, scope: Scope) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted_name(alias.name)
                if alias.asname is not None:
                    local = alias.asname.name.value
                    qual = full
                else:
                    local = full.split(".")[0]
                    qual = local
                scope.bind(local, Binding(BindingKind.IMPORT, node, self._counter, qualname=qual))
            return
        if node.relative or node.module is None:
            base = None
        else:
            base = dotted_name(node.module)
        for alias in node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else dotted_name(alias.name)
            local = alias.asname.name.value if alias.asname is not None else name
            qual = f"{base}.{name}" if base else None
            scope.bind(local, Binding(BindingKind.IMPORT, node, self._counter, qualname=qual))

    def _bind_targets(self, target, scope: Scope, node) -> None:
        for name_node in target_names(target):
            name = name_node.value
            if scope.kind == "module" or name in scope.globals:
                if self.module_scope.bindings.get(name):
                    self.global_writes[name].append(node)
                elif name in scope.globals:
                    self.global_writes[name].append(node)
            scope.bind(name, Binding(BindingKind.ASSIGN, node, self._counter))

    # ------------------------------------------------------------------ queries
    def nodes(self, *types: type) -> Iterator[cst.CSTNode]:
        """Every node of the given libcst types, in document order."""
        if len(types) == 1:
            yield from self._index.get(types[0], ())
            return
        found = [n for t in types for n in self._index.get(t, ())]
        found.sort(key=self.order.__getitem__)
        yield from found

    def function_of(self, node: cst.CSTNode) -> Optional[FunctionInfo]:
        """The innermost function whose body contains `node`."""
        return self._enclosing.get(node)

    def function_info(self, node: cst.CSTNode) -> Optional[FunctionInfo]:
        """The FunctionInfo of a FunctionDef / Lambda node."""
        return self._function_of_node.get(node)

    def traced_function_of(self, node: cst.CSTNode) -> Optional[FunctionInfo]:
        """The function containing `node`, if it is traced and the trace runs `node`."""
        f = self._enclosing.get(node)
        return f if f is not None and f.traced and self.traced_here(node) else None

    def abstract_function_of(self, node: cst.CSTNode) -> Optional[FunctionInfo]:
        """The function containing `node`, if its values are abstract tracers there."""
        f = self._enclosing.get(node)
        return f if f is not None and f.abstract and self.traced_here(node) else None

    def traced_here(self, node: cst.CSTNode) -> bool:
        """Whether a trace of the function containing `node` runs it: False inside an arm
        of a branch whose test has the other value in every trace (`if not for_jit:` where
        every traced caller passes `for_jit=True`). True outside traced functions."""
        f = self._enclosing.get(node)
        dead = self.untraced_arms.get(f) if f is not None else None
        if not dead:
            return True
        if node in dead:
            return False
        for anc in self.ancestors(node):
            if anc in dead:
                return False
            if anc is f.node:
                break
        return True

    def scope_of(self, node: cst.CSTNode) -> Scope:
        scope = self._scope_of.get(node)
        if scope is not None:
            return scope
        f = self._enclosing.get(node)
        return f.scope if f is not None else self.module_scope

    def qualname(self, node: cst.BaseExpression) -> Optional[str]:
        """The dotted name an expression refers to through imports: `jnp.sum` -> `jax.numpy.sum`.

        Builtins resolve to `builtins.NAME` when not shadowed.
        """
        try:
            return self._qualnames[node]
        except KeyError:
            pass
        q = self._qualnames[node] = self._resolve_qualname(node)
        return q

    def _resolve_qualname(self, node: cst.BaseExpression) -> Optional[str]:
        attrs = []
        cur = node
        while isinstance(cur, cst.Attribute):
            attrs.append(cur.attr.value)
            cur = cur.value
        if not isinstance(cur, cst.Name):
            return None
        scope = self.scope_of(cur)
        base = scope.resolve_import(cur.value)
        if base is None:
            base = self._jax_import_with_fallback(scope, cur.value)
        if base is None:
            base = self._alias_of(scope, cur.value)
        if base is None:
            return None
        if attrs:
            if base.startswith("builtins."):
                return None
            return base + "." + ".".join(reversed(attrs))
        return base

    def _jax_import_with_fallback(self, scope: Scope, name: str) -> Optional[str]:
        """`try: import jax.numpy as jnp` / `except ImportError: jnp = np`: with JAX
        installed (the code is linted as JAX code) the import succeeds and the handler
        never runs, so `jnp` is jax.numpy. Every other binding must sit in a handler
        catching ImportError of a `try` whose body makes the JAX import."""
        bindings = scope.lookup(name)
        if not bindings:
            return None
        imports = [b for b in bindings if b.kind == BindingKind.IMPORT]
        quals = {b.qualname for b in imports}
        if len(quals) != 1:
            return None
        qual = next(iter(quals))
        from jaxlint.jax_api import ALIASED_MODULES
        if qual not in ALIASED_MODULES or not qual.startswith("jax"):
            return None  # a module every JAX has (not a name some versions removed)
        import_nodes = {b.node for b in imports}
        for b in bindings:
            if b.kind == BindingKind.IMPORT:
                continue
            child = b.node
            for anc in self.ancestors(b.node):
                if isinstance(anc, cst.Try) and child in anc.handlers:
                    body = list(self._statements_in(anc.body))
                    if self._catches_import_error(child.type) \
                            and any(n in import_nodes for n in body) \
                            and all(self._imports_only_jax(n) for n in body):
                        break
                    return None
                if isinstance(anc, (cst.FunctionDef, cst.ClassDef)):
                    return None
                child = anc
            else:
                return None
        return qual

    def _catches_import_error(self, expr: Optional[cst.BaseExpression]) -> bool:
        if expr is None:
            return False  # a bare except also catches errors of the body's other statements
        if isinstance(expr, cst.Tuple):
            return any(self._catches_import_error(el.value) for el in expr.elements)
        return isinstance(expr, cst.Name) and expr.value in ("ImportError", "ModuleNotFoundError") \
            and self.scope_of(expr).lookup(expr.value) is None

    @staticmethod
    def _imports_only_jax(node: cst.CSTNode) -> bool:
        """An import statement in the `try` body imports only from JAX (that succeeds)."""
        if isinstance(node, cst.Import):
            return all((dotted_name(a.name) or "").split(".")[0] == "jax" for a in node.names)
        if isinstance(node, cst.ImportFrom):
            return node.module is not None and not node.relative \
                and (dotted_name(node.module) or "").split(".")[0] == "jax"
        return not isinstance(node, (cst.Try, cst.If, cst.With, cst.For, cst.While))

    @staticmethod
    def _statements_in(body: cst.BaseSuite) -> Iterator[cst.CSTNode]:
        for stmt in getattr(body, "body", ()):
            yield stmt
            if isinstance(stmt, cst.SimpleStatementLine):
                yield from stmt.body

    def _alias_of(self, scope: Scope, name: str) -> Optional[str]:
        """`jit = jax.jit`, `jnp = jax.numpy`: a name bound once to a transform or a module
        is that transform or module (Python binds the same object). Constants
        (`DTYPE = jnp.float64`) are values, read as such by the rules that want them."""
        from jaxlint.engine.tracing import PARTIAL, transform_for
        from jaxlint.jax_api import ALIASED_MODULES

        bindings = scope.lookup(name)
        if not bindings or len(bindings) != 1 or bindings[0].kind != BindingKind.ASSIGN:
            return None
        node = bindings[0].node
        if not isinstance(node, cst.Assign) or len(node.targets) != 1 \
                or not isinstance(node.targets[0].target, cst.Name) \
                or not isinstance(node.value, (cst.Name, cst.Attribute)):
            return None
        resolving = self.__dict__.setdefault("_aliases_resolving", set())
        if name in resolving:
            return None  # `a = b` and `b = a`
        resolving.add(name)
        try:
            q = self.qualname(node.value)
        finally:
            resolving.discard(name)
        if q is None or not (q in ALIASED_MODULES or q in PARTIAL or transform_for(self, q) is not None):
            return None
        return q

    def resolve_function(self, node: cst.BaseExpression) -> Optional[FunctionInfo]:
        """The function defined in this file that a Name refers to, if any: a `def`, or a
        lambda the name is bound to once."""
        if isinstance(node, cst.Lambda):
            return self._function_of_node.get(node)
        if not isinstance(node, cst.Name):
            return None
        # The value analysis and many rules ask this of the same call's name.
        try:
            return self._functions_named[node]
        except KeyError:
            pass
        found = self._functions_named[node] = self._resolve_function(node)
        return found

    def _resolve_function(self, node: cst.Name) -> Optional[FunctionInfo]:
        bindings = self.scope_of(node).lookup(node.value)
        if bindings and len(bindings) == 1 and bindings[0].kind == BindingKind.ASSIGN:
            # `vv = lambda x, y: ...`, bound once: the lambda is the function.
            assign = bindings[0].node
            if isinstance(assign, cst.Assign) and len(assign.targets) == 1 \
                    and isinstance(assign.targets[0].target, cst.Name) and isinstance(assign.value, cst.Lambda):
                return self._function_of_node.get(assign.value)
        if not bindings:
            return None
        if any(b.kind != BindingKind.DEF for b in bindings):
            # `step = jax.jit(step)`: the `step` inside the call is still the def.
            found = self.binding_in_effect(node)
            return found.function if found is not None and found.kind == BindingKind.DEF else None
        ref_order = self.order.get(node, 0)
        best = None
        for b in bindings:
            if b.order < ref_order or best is None:
                best = b
        return best.function if best is not None else None

    def binding_in_effect(self, node: cst.Name) -> Optional[Binding]:
        """The binding a read of `node` sees, where the name's bindings are plain `def`s
        and `name = value` statements run in order (none under an `if`, loop or `try`):
        in the same scope, the last one before the read (`f = jax.jit(f)` reads the def);
        from a nested function, which runs later, the last one of all. None otherwise."""
        bindings = self.scope_of(node).lookup(node.value)
        if not bindings or self.comprehension_variable(node):
            return None
        for b in bindings:
            if b.kind not in (BindingKind.DEF, BindingKind.ASSIGN) or not self.straight_line(b.node):
                return None
            if b.kind == BindingKind.ASSIGN and not isinstance(b.node, cst.Assign):
                return None
        if self.scope_of(node).bindings.get(node.value) is not bindings:
            found = max(bindings, key=lambda b: b.order)
        else:
            ref_order = self.order.get(node, 0)
            before = [b for b in bindings if b.order < ref_order and not self._encloses(b.node, node)]
            found = max(before, key=lambda b: b.order) if before else None
        # An unpacking (`w, b = theta`) runs in order like the others, but the value it
        # binds is not one expression: only a plain `name = value` is given back.
        if found is not None and found.kind == BindingKind.ASSIGN and not (
                len(found.node.targets) == 1 and isinstance(found.node.targets[0].target, cst.Name)):
            return None
        return found

    def assigned_just_before(self, node: cst.Name) -> Optional[cst.Assign]:
        """`name = value`, a statement earlier in the same block as the statement that reads
        `node`, with no statement between them that binds the name: statements of one block
        run in order, so that is the value the read sees, in a loop body or anywhere else."""
        stmt, block = node, None
        for anc in self.ancestors(node):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) or anc is self.module:
                if isinstance(anc, cst.Module):
                    block = anc
                break
            if isinstance(anc, cst.IndentedBlock):
                block = anc
                break
            stmt = anc
        if block is None or stmt not in block.body:
            return None
        for prev in reversed(block.body[:block.body.index(stmt)]):
            if isinstance(prev, cst.SimpleStatementLine) and len(prev.body) == 1 \
                    and isinstance(prev.body[0], cst.Assign) and len(prev.body[0].targets) == 1:
                target = prev.body[0].targets[0].target
                if isinstance(target, cst.Name) and target.value == node.value:
                    return prev.body[0]
            if any(isinstance(n, cst.Name) and n.value == node.value and self._binds(n)
                   for n in walk(prev)):
                return None
        return None

    def _binds(self, name: cst.Name) -> bool:
        parent = self.parents.get(name)
        while isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            parent = self.parents.get(parent)
        return isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor,
                                   cst.NamedExpr, cst.AsName, cst.WithItem, cst.FunctionDef, cst.ClassDef,
                                   cst.Global, cst.Nonlocal)) \
            or isinstance(parent, cst.Param)

    def _encloses(self, outer: cst.CSTNode, node: cst.CSTNode) -> bool:
        return any(anc is outer for anc in self.ancestors(node))

    def straight_line(self, stmt: cst.CSTNode) -> bool:
        """Whether `stmt` runs whenever its function (or module) body does, once. The body
        of `if __name__ == "__main__":` counts as the module's own: it is the program a
        script runs, in order, once."""
        for anc in self.ancestors_past_main_guard(stmt):
            if isinstance(anc, (cst.Module, cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return True
            if isinstance(anc, (cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.Match,
                                cst.Else, cst.ExceptHandler, cst.Finally)):
                return False
        return True

    def ancestors_past_main_guard(self, node: cst.CSTNode):
        """`node`'s ancestors, leaving out an `if __name__ == "__main__":` whose body holds
        it: for the order a script runs in, that body is the module's own code."""
        child = node
        for anc in self.ancestors(node):
            if not (isinstance(anc, cst.If) and child is anc.body and self.main_guard(anc)):
                yield anc
            child = anc

    def main_guard(self, node: cst.CSTNode) -> bool:
        """`if __name__ == "__main__":` at module level (either operand order)."""
        if not isinstance(node, cst.If) or not isinstance(self.parent(node), cst.Module):
            return False
        test = node.test
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 \
                or not isinstance(test.comparisons[0].operator, cst.Equal):
            return False
        sides = (test.left, test.comparisons[0].comparator)
        names = [s for s in sides if isinstance(s, cst.Name) and s.value == "__name__"]
        strings = [s for s in sides if isinstance(s, cst.SimpleString) and s.evaluated_value == "__main__"]
        return len(names) == 1 and len(strings) == 1

    def returned_expressions(self, info: FunctionInfo, position: Optional[int] = None
                             ) -> Optional[list[cst.BaseExpression]]:
        """What each `return` of `info` returns (with `position`: that element of a returned
        tuple, as `a, b = factory()` unpacks it); None when a return is bare or does not
        have the element, or the function has no return."""
        index = self.__dict__.get("_returns_by_function")
        if index is None:
            index = {}
            for ret in self.nodes(cst.Return):
                index.setdefault(self.function_of(ret), []).append(ret)
            self._returns_by_function = index
        if isinstance(info.node, cst.Lambda):
            found = [info.node.body]
        else:
            found = [ret.value for ret in index.get(info, ())]
        if not found or any(v is None for v in found):
            return None
        if position is None:
            return found
        out = []
        for value in found:
            if not isinstance(value, cst.Tuple) or position >= len(value.elements) \
                    or any(isinstance(el, cst.StarredElement) for el in value.elements):
                return None
            out.append(value.elements[position].value)
        return out

    def resolve_class(self, node: cst.BaseExpression) -> Optional[ClassInfo]:
        if not isinstance(node, cst.Name):
            return None
        bindings = self.scope_of(node).lookup(node.value)
        if not bindings or any(b.kind != "class" for b in bindings):
            return None
        return bindings[-1].klass

    def class_of_self(self, name: cst.Name) -> Optional[ClassInfo]:
        """The class whose instance `name` is, where `name` is the first parameter of a
        method (read in the method or in a function nested in it)."""
        func = self.function_of(name)
        while func is not None and func.klass is None:
            if name.value in func.scope.bindings:
                return None  # rebound by the nested function
            func = func.enclosing
        if func is None or not func.positional or name.value != func.positional[0] \
                or _decorated_static(func):
            return None
        return func.klass

    def method_of_self(self, expr: cst.BaseExpression) -> Optional[FunctionInfo]:
        """The method `self.name` refers to, inside a method of the same class."""
        if not isinstance(expr, cst.Attribute) or not isinstance(expr.value, cst.Name):
            return None
        func = self.function_of(expr)
        while func is not None and func.klass is None:
            func = func.enclosing
        if func is None or not func.positional or expr.value.value != func.positional[0]:
            return None
        found = self.class_method(func.klass, expr.attr.value)
        if found is None:
            # A base class calling a method only one subclass of this file defines
            # (`self.compute` in `_Objective.build`, `compute` in `ForceBalance`).
            defining = [c.methods[expr.attr.value] for c in func.klass.relatives
                        if expr.attr.value in c.methods]
            found = defining[0] if len(defining) == 1 else None
        return found

    def class_method(self, klass: ClassInfo, name: str, depth: int = 0) -> Optional[FunctionInfo]:
        """The method `name` of `klass`, its own or inherited from a base class of this file."""
        found = klass.methods.get(name)
        if found is not None or depth > 8 or klass.node is None:
            return found
        for base in klass.node.bases:
            parent = self.resolve_class(base.value)
            if parent is not None and parent is not klass:
                found = self.class_method(parent, name, depth + 1)
                if found is not None:
                    return found
        return None

    def calls_named(self, name: str) -> list[cst.Call]:
        """The calls `name(...)` in the file."""
        return self._call_indexes()[0].get(name, [])

    def attribute_calls_named(self, attr: str) -> list[cst.Call]:
        """The calls `<expr>.attr(...)` in the file."""
        return self._call_indexes()[1].get(attr, [])

    def _call_indexes(self) -> tuple[dict, dict]:
        """The file's calls by called name and by called attribute, built in one pass on
        first use."""
        indexes = self.__dict__.get("_calls_by_spelling")
        if indexes is None:
            by_name: dict = {}
            by_attribute: dict = {}
            for call in self.nodes(cst.Call):
                if isinstance(call.func, cst.Name):
                    by_name.setdefault(call.func.value, []).append(call)
                elif isinstance(call.func, cst.Attribute):
                    by_attribute.setdefault(call.func.attr.value, []).append(call)
            indexes = self._calls_by_spelling = (by_name, by_attribute)
        return indexes

    def names_spelled(self, name: str) -> list[cst.Name]:
        """The `Name` nodes `name` in the file, in document order (an index built on
        first use; not kept from a rerun around deep code, which sees fewer)."""
        index = self.__dict__.get("_names_by_spelling")
        if index is None:
            index = {}
            for node in self.nodes(cst.Name):
                index.setdefault(node.value, []).append(node)
            if "nodes" not in self.__dict__:
                self._names_by_spelling = index
        return index.get(name, [])

    def names_spelled_in(self, name: str, node: cst.CSTNode) -> list[cst.Name]:
        """The `Name` nodes `name` inside `node` (a function, a block), in document order:
        a bisect of `names_spelled` by position, so asking once per function stays linear
        in the file's size when many functions reuse one spelling."""
        names = self.names_spelled(name)
        first = self.order.get(node)
        if first is None:
            return [n for n in names if any(a is node for a in self.ancestors(n))]
        orders = self.__dict__.setdefault("_name_orders", {}).get(name)
        if orders is None or len(orders) != len(names):
            orders = [self.order.get(n, -1) for n in names]
            self._name_orders[name] = orders
        return names[bisect.bisect_left(orders, first):bisect.bisect_right(orders, self._last_order(node))]

    def _last_order(self, node: cst.CSTNode) -> int:
        """The document position of the last node inside `node` (its last descendant)."""
        last = node
        while True:
            kids = children(last)
            if not kids:
                return self.order.get(last, self.order.get(node, -1))
            last = kids[-1]

    def comprehension_variable(self, name: cst.Name) -> bool:
        """`x` in `[x[5] for x in rows]`: a comprehension's own variable, which the scopes
        do not bind (they would find an outer `x`)."""
        if name.value not in self._comprehension_targets():
            return False  # asked of most names in a file: no walk up for a name no comprehension binds
        for anc in self.ancestors(name):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(anc, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
                comp = anc.for_in
                while comp is not None:
                    if any(n.value == name.value for n in target_names(comp.target)):
                        return True
                    comp = comp.inner_for_in
        return False

    def _comprehension_targets(self) -> frozenset[str]:
        """The names the comprehensions of the file bind (from the walk's index, which a
        rerun around deep code does not filter)."""
        names = self.__dict__.get("_comprehension_names")
        if names is None:
            names = self._comprehension_names = frozenset(
                n.value for comp in self._index.get(cst.CompFor, ()) for n in target_names(comp.target))
        return names

    def assigned_values(self, name: cst.Name) -> Optional[list[cst.BaseExpression]]:
        """The values `name` is bound to where it is read, when every binding it can see is
        a plain `name = value` (one target); None when any is something else (a parameter,
        an import, a loop or tuple target, `+=`) or there is none."""
        if self.comprehension_variable(name):
            return None
        bindings = self.scope_of(name).lookup(name.value)
        if not bindings:
            return None
        values = []
        for b in bindings:
            node = b.node
            if b.kind != BindingKind.ASSIGN or not isinstance(node, cst.Assign) or len(node.targets) != 1 \
                    or not isinstance(node.targets[0].target, cst.Name):
                return None
            values.append(node.value)
        return values

    def attribute_targets(self, expr: cst.Attribute) -> Optional[list[cst.Attribute]]:
        """The targets of every `self.name = value` that sets `expr` (`self.name` in a
        method), in its class and the classes of this file related to it; None when the
        attribute is also written some other way, or is a method."""
        if not isinstance(expr.value, cst.Name):
            return None
        klass = self.class_of_self(expr.value)
        return self._class_attribute_targets(klass, expr.attr.value)

    def _class_attribute_targets(self, klass, attr: str) -> Optional[list[cst.Attribute]]:
        """The targets of every `self.<attr> = value` in `klass` and the classes related to it;
        None when the attribute is also written some other way, or is a method."""
        if klass is None or attr in self.foreign_attribute_writes or "*" in self.foreign_attribute_writes:
            return None
        out = []
        for rel in klass.relatives or (klass,):
            if attr in rel.attributes_unfollowed or "*" in rel.attributes_unfollowed or attr in rel.methods:
                return None
            out.extend(rel.attribute_sites.get(attr, ()))
        return out or None

    def attribute_assignments(self, expr: cst.Attribute) -> Optional[list[cst.BaseExpression]]:
        """The values every `self.name = value` assigns to what `expr` reads, or None.
        `expr` is `self.name` in a method, or `obj.name` where `obj = Cls(...)` of this file
        (and nothing outside the class writes `name`)."""
        targets = self.attribute_targets(expr)
        if targets is None and isinstance(expr.value, cst.Name):
            targets = self._instance_attribute_targets(expr)
        if targets is None:
            return None
        out = []
        for target in targets:
            assign = self.parents.get(self.parents.get(target))
            if not isinstance(assign, cst.Assign):
                return None  # an annotated assignment: fine, but rare; unknown
            out.append(assign.value)
        return out

    def _instance_class(self, name: cst.Name):
        """The class of this file that `name` is an instance of, where `name = Cls(...)` is its
        one binding; None otherwise."""
        bindings = self.scope_of(name).lookup(name.value)
        if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
            return None
        node = bindings[0].node
        if not isinstance(node, cst.Assign) or not isinstance(node.value, cst.Call):
            return None
        return self.resolve_class(node.value.func)

    def _instance_attribute_targets(self, expr: cst.Attribute) -> Optional[list[cst.Attribute]]:
        klass = self._instance_class(expr.value)
        return self._class_attribute_targets(klass, expr.attr.value)

    def method_of_instance(self, expr: cst.BaseExpression) -> Optional[FunctionInfo]:
        """The method `obj.name` refers to, where `obj = Cls(...)` of a class in this file."""
        if not isinstance(expr, cst.Attribute) or not isinstance(expr.value, cst.Name):
            return None
        klass = self._instance_class(expr.value)
        if klass is None:
            return None
        return self.class_method(klass, expr.attr.value)

    @property
    def positions(self) -> "Positions":
        """Source positions of nodes, computed only for the statements asked about.

        libcst computes positions with a code generation pass; over a whole file
        that costs more than the parse, so positions are made one top-level
        statement at a time, and only for files with findings.
        """
        if self._positions is None:
            self._positions = Positions(self)
        return self._positions

    def line_of(self, node: cst.CSTNode) -> int:
        """The line of a node, as a message names it (in the document the model is part of)."""
        line = self.positions[node].start.line
        return line if self.document_line is None else self.document_line(line)

    def value(self, node: cst.BaseExpression) -> Value:
        """What the value analysis found for this expression."""
        return self.values.get(node, UNKNOWN)

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(node)

    def shown_by_cell(self, small: cst.BaseSmallStatement) -> bool:
        """Whether `small` is the last statement of a notebook's or cell script's cell, at
        its top level: IPython shows the value of a cell's last expression (its default
        `ast_node_interactivity`), so that value is not dropped. Where the cells' lines are
        not known (a notebook read by another caller), any top-level statement may be."""
        line = self.parent(small)
        if not self.cells or not isinstance(line, cst.SimpleStatementLine) \
                or not isinstance(self.parent(line), cst.Module) or line.body[-1] is not small:
            return False
        if self.cell_starts is None:
            return True
        body = self.module.body
        at = body.index(line)
        if at + 1 == len(body):
            return True

        def cell(node: cst.CSTNode) -> int:
            return bisect.bisect_right(self.cell_starts, self.positions[node].start.line)

        return cell(body[at + 1]) != cell(line)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        cur = self.parents.get(node)
        while cur is not None:
            yield cur
            cur = self.parents.get(cur)

    def eager_guarded(self, node: cst.CSTNode) -> bool:
        """Whether `node` is in a `try` body whose handler catches the tracer errors.

        `try: n = int(x) except TypeError: ...` is a deliberate eager-only path:
        the code handles the traced case itself.
        """
        from jaxlint.jax_api import TRACER_ERRORS

        child = node
        for anc in self.ancestors(node):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
                return False
            if isinstance(anc, (cst.Try, cst.TryStar)) and child is anc.body:
                for handler in anc.handlers:
                    if handler.type is None:
                        return True
                    types = handler.type
                    elems = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
                    if any(self.qualname(e) in TRACER_ERRORS for e in elems):
                        return True
            child = anc
        return False

    def expects_error(self, node: cst.CSTNode) -> bool:
        """Whether `node` runs inside `with pytest.raises(...)` / `self.assertRaises(...)`:
        a test that checks the error is raised, so reporting it tells the author nothing."""
        from jaxlint.jax_api import EXPECTED_ERROR_CONTEXTS, EXPECTED_ERROR_METHODS

        for anc in self.ancestors(node):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if not isinstance(anc, cst.With):
                continue
            for item in anc.items:
                call = item.item
                if not isinstance(call, cst.Call):
                    continue
                if self.qualname(call.func) in EXPECTED_ERROR_CONTEXTS:
                    return True
                if isinstance(call.func, cst.Attribute) and call.func.attr.value in EXPECTED_ERROR_METHODS:
                    return True
        return False

    def in_loop(self, node: cst.CSTNode, stop_at_function: bool = True) -> Optional[cst.CSTNode]:
        """The innermost For / While (or comprehension) around `node` in the same function."""
        for anc in self.ancestors(node):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)) and stop_at_function:
                return None
            if isinstance(anc, _LOOPS) or isinstance(anc, _COMPREHENSIONS):
                return anc
        return None

    def mentions(self, prefix: str) -> bool:
        """Whether any import in the file refers to `prefix` (e.g. "jax")."""
        for bindings in self.module_scope.bindings.values():
            for b in bindings:
                if b.kind == "import" and b.qualname and (
                        b.qualname == prefix or b.qualname.startswith(prefix + ".")):
                    return True
        return any(
            b.kind == "import" and b.qualname and b.qualname.split(".")[0] == prefix
            for f in self.functions for bs in f.scope.bindings.values() for b in bs)


def _decorated_static(func: FunctionInfo) -> bool:
    """A staticmethod or classmethod: its first parameter is not an instance."""
    return isinstance(func.node, cst.FunctionDef) and any(
        isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod")
        for d in func.node.decorators)


_LINE_BREAKS = re.compile(r"\r\n|\r|\n")


class Positions:
    """`CodeRange`s of nodes, by top-level statement: `get(node)` and `[node]`."""

    def __init__(self, model: FileModel):
        self.model = model
        self._start: Optional[dict] = None  # top-level statement -> its first line
        self._done: dict = {}
        self._ranges: dict = {}

    def _starts(self) -> dict:
        if self._start is None:
            module = self.model.module
            line = 1 + len(module.header)  # each header EmptyLine is one line
            starts = self._starts_from_ast() if self.model.ast_tree is not None else None
            if starts:
                self._start = starts
                return starts
            starts = {}
            try:
                for stmt in module.body:
                    starts[stmt] = line
                    line += len(_LINE_BREAKS.findall(module.code_for_node(stmt)))
            except RecursionError:  # a statement too deep to print: Python's own line numbers
                starts = self._starts_from_ast()
            self._start = starts
        return self._start

    def _starts_from_ast(self) -> dict:
        """Each top-level statement's first line (its leading blank and comment lines
        included), from the line of its first token as Python's parser numbers it."""
        import ast

        tree = self.model.ast_tree
        if tree is None:
            text = self.model.text
            if text is None:
                return {}
            try:
                tree = ast.parse(text)
            except (SyntaxError, RecursionError, MemoryError, ValueError):
                return {}
        firsts = iter(tree.body)
        starts = {}
        for stmt in self.model.module.body:
            n = len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
            nodes = [next(firsts, None) for _ in range(n)]
            if nodes[0] is None:
                break
            first = min([nodes[0].lineno] + [d.lineno for d in getattr(nodes[0], "decorator_list", ())])
            before = len(stmt.leading_lines)
            decorators = getattr(stmt, "decorators", ())
            if decorators:
                before += len(decorators[0].leading_lines)
            starts[stmt] = first - before
        return starts

    def _top(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        module = self.model.module
        parents = self.model.parents
        cur = node
        while cur is not None:
            parent = parents.get(cur)
            if parent is module:
                return cur
            cur = parent
        return None

    def get(self, node: cst.CSTNode, default=None):
        found = self._ranges.get(node)
        if found is not None:
            return found
        top = self._top(node)
        if top is None or top not in self._starts():
            return default
        if top not in self._done:
            self._compute(top)
        done = self._done[top]
        if done is None:
            return default  # too deep to print
        raw, offset = done
        r = raw.get(node)
        if r is None:
            return default
        from libcst._position import CodePosition, CodeRange

        (sl, sc), (el, ec) = r
        found = self._ranges[node] = CodeRange(CodePosition(sl + offset, sc), CodePosition(el + offset, ec))
        return found

    def __getitem__(self, node: cst.CSTNode):
        found = self.get(node)
        if found is None:
            raise KeyError(node)
        return found

    def _compute(self, top: cst.CSTNode) -> None:
        # libcst's own position codegen, run on the one statement (not through a
        # MetadataWrapper, which would visit and index the whole tree first).
        from libcst.metadata.position_provider import PositionProvider

        self._done[top] = None
        offset = self._starts()[top] - 1
        module = self.model.module
        provider = PositionProvider()
        state = _positions_state()(default_indent=module.default_indent,
                                  default_newline=module.default_newline, provider=provider)
        try:
            top._codegen(state)
        except RecursionError:
            return  # a statement nested too deep for libcst: only it goes without positions
        # Shifted to the file's lines when asked for (most nodes never are).
        self._done[top] = (provider._computed, offset)


_STATE_CLASS = None


class _Record:
    """`record_syntactic_position` without a generator: positions as plain tuples."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state, node, start_node, end_node):
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self):
        self.start = (self.state.line, self.state.column)

    def __exit__(self, *exc):
        if exc[0] is not None:
            return False  # a RecursionError going up: the end was never recorded
        state = self.state
        computed = state.provider._computed
        start = computed[self.start_node][0] if self.start_node is not None else self.start
        end = computed[self.end_node][1] if self.end_node is not None else (state.line, state.column)
        computed[self.node] = (start, end)
        return False


def _positions_state():
    """libcst's position-recording codegen state, made cheaper: positions are
    (line, column) tuples, and a token without a line break skips the regex split."""
    global _STATE_CLASS
    if _STATE_CLASS is None:
        from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState

        class _State(PositionProvidingCodegenState):
            __slots__ = ()

            def _update_position(self, value: str) -> None:
                if "\n" not in value and "\r" not in value:
                    self.column += len(value)
                    return
                segments = NEWLINE_RE.split(value)
                self.line += len(segments) - 1
                self.column = len(segments[-1])

            def before_codegen(self, node) -> None:
                self._stack.append((self.line, self.column))

            def after_codegen(self, node) -> None:
                start = self._stack.pop()
                computed = self.provider._computed
                if node not in computed:
                    computed[node] = (start, (self.line, self.column))

            def record_syntactic_position(self, node, *, start_node=None, end_node=None):
                return _Record(self, node, start_node, end_node)

        _STATE_CLASS = _State
    return _STATE_CLASS
