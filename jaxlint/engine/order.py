"""The order in which a program runs its statements, as a list of events.

A module (or a notebook, whose cells run in order) is read from the top, the way
Python runs it: a call of a function of the file runs that function's body at the
call (inlined, a few levels deep), a loop body runs twice (enough to see what
happens between two rounds), both branches of an `if` run one after the other,
a statement after a `break`, `continue`, `return` or `raise` of its block does
not run (`flow.reachable`), and a `def` binds a fresh function. Each function of the file that the module
never calls is also read as an entry point of its own, as a library's caller
would run it.

The events are what rules about "before" and "after" need (JAX103 today):
- `call`: a watched name is called, or passed to a call as a callback;
- `write`: a module-level variable is rebound (at module level, or through
  `global` in a function);
- `bind`: its first binding, whose value a later rebinding may repeat;
- `fresh`: a watched name is bound to a new function object (`def`, a lambda, a
  factory's result), so a jitted function traced before is not the one called after;
- `clear`: `jax.clear_caches()`, after which everything traces afresh;
- `read`: a name that the result of a call of a watched name is assigned to
  (`state, loss = step(state, x)`) is read, so what that call returned is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.flow import reachable
from jaxlint.engine.model import FileModel, children, walk
from jaxlint.engine.scopes import target_names
from jaxlint.jax_api import TRANSFORMS

CLEAR_CACHE_CALLS = frozenset({"jax.clear_caches"})
# Wrapping a function is not running it: `jax.jit(step)`, `partial(step, lr)`.
_WRAPPERS = frozenset(TRANSFORMS) | {"functools.partial"}
_MAX_DEPTH = 5
_MAX_EVENTS = 20000


@dataclass(frozen=True)
class Event:
    kind: str  # "call", "write", "bind" (a global's first binding), "fresh", "clear", "read"
    name: str
    node: cst.CSTNode
    # For a call: the `def` the name resolves to there (None: not known), so two
    # functions of the same name in different scopes stay apart.
    target: Optional[cst.CSTNode] = None
    # For a write: a key for the value when the walk knows it is equal by construction
    # to any other value of the same key (`optax.adam(1e-3)` again, `2.0`, the
    # graphdef of `nnx.split(Model(rngs=rngs))` again), else None.
    value: Optional[str] = None


def program_runs(model: FileModel, watched: frozenset[str],
                 attribute_writes: Optional[dict[str, list[cst.CSTNode]]] = None) -> list[list[Event]]:
    """The event lists of the module and of each function it never calls.

    `attribute_writes` ("obj.name" -> statements, from `attribute_writes`) adds the
    writes of attributes of module-level objects as `write` events of "obj.name"."""
    writes: dict[int, list[str]] = {}
    for name, nodes in list(model.global_writes.items()) + list((attribute_writes or {}).items()):
        for node in nodes:
            writes.setdefault(id(node), []).append(name)
    # The first binding of a rebound global: its value, for `runs_between`.
    initial: dict[int, list[str]] = {}
    for name in model.global_writes:
        bindings = model.module_scope.bindings.get(name)
        if bindings:
            initial.setdefault(id(bindings[0].node), []).append(name)
    results = _result_names(model, watched)
    module = _Walker(model, watched, writes, initial, results)
    module.block(model.module.body, 0)
    runs = [module.events]
    total = len(module.events)
    for info in _module_functions(model):
        if info.node in module.entered:
            continue
        if total >= _MAX_EVENTS:
            break
        walker = _Walker(model, watched, writes, initial, results)
        walker.function(info, 0)
        runs.append(walker.events)
        total += len(walker.events)
    model.program_events = max(model.program_events, total)
    return runs


def attribute_writes(model: FileModel) -> dict[str, list[cst.CSTNode]]:
    """`obj.name = value` (or `+=`) anywhere in the file, where `obj` is a module-level
    variable: the statements by "obj.name". The object stays the same, so a jitted
    function that read `obj.name` while tracing keeps the old value."""
    out: dict[str, list[cst.CSTNode]] = {}
    module_bindings = model.module_scope.bindings
    for stmt in model.nodes(cst.Assign, cst.AugAssign):
        targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
        for target in targets:
            if not isinstance(target, cst.Attribute) or not isinstance(target.value, cst.Name):
                continue
            obj = target.value.value
            bindings = model.scope_of(target.value).lookup(obj)
            if bindings is None or bindings is not module_bindings.get(obj) \
                    or any(b.kind != "assign" for b in bindings):
                continue
            out.setdefault(f"{obj}.{target.attr.value}", []).append(stmt)
    return out


# A value as the walk knows it: a key (two values of one key are equal by construction)
# and whether the arrays it holds may still differ between two values of that key (a
# model of this file built again draws new weights); such values are equal only in
# their structure, which is what `nnx.split(...)[0]` or a treedef keeps.
_Known = tuple[str, bool]
_MAX_EXPR_DEPTH = 40


class _ValueKeys:
    """What each module-level variable holds as the walk goes: a key built from the
    expression that bound it, with the names in it replaced by what they held then.
    The same call with the same constant arguments, of names not changed in between,
    gives the same key: a notebook cell run again (`optimizer = optax.adam(1e-3)`,
    `key = jax.random.PRNGKey(0)`, `w = jax.random.normal(key, (3,))`). A call that
    draws afresh (`np.random.rand(3)`, `time.time()`, `input()`), a method called on an
    object, or a name the walk cannot follow gives no key: a rebinding to it is a change."""

    def __init__(self, model: FileModel):
        self.model = model
        self.known: dict[str, _Known] = {}
        self.versions: dict[str, int] = {}
        self.epochs: dict[str, int] = {}
        self.defs: dict[str, int] = {}
        self._interned: dict[str, str] = {}
        # Keys that are the dotted name of something imported (`optax.adam`).
        self._imported: set[str] = set()

    def _intern(self, text: str) -> str:
        """A short key per distinct text, so keys stay small however deep they nest."""
        return self._interned.setdefault(text, f"v{len(self._interned)}")

    # ------------------------------------------------------------ state
    def is_global(self, name: cst.Name) -> bool:
        bindings = self.model.scope_of(name).lookup(name.value)
        return bindings is not None and bindings is self.model.module_scope.bindings.get(name.value) \
            and not any(b.kind in ("def", "class", "import") for b in bindings)

    def assign(self, name: str, known: Optional[_Known]) -> None:
        if known is None:
            self.changed(name)
        else:
            self.known[name] = known
            self._touched(name)

    def changed(self, name: str) -> None:
        """Rebound to an unknown value, or changed in place (`obj.a = v`, `obj.m()`)."""
        self.versions[name] = self.versions.get(name, 0) + 1
        self.known.pop(name, None)
        self._touched(name)

    def consumed(self, name: str) -> None:
        """Passed to a call that may draw from it (`Model(rngs=rngs)`): the same
        object, but what it gives next may differ."""
        key = self.known.get(name, (f"{name}#{self.versions.get(name, 0)}", False))[0]
        self.known[name] = (key, True)
        self._touched(name)

    def _touched(self, name: str) -> None:
        """The name now holds another object, or one that may have changed: what was
        read from it before may differ from what is read after (`identity`)."""
        self.epochs[name] = self.epochs.get(name, 0) + 1

    def identity(self, name: str) -> str:
        """The object the name holds now: the same string as long as it is neither
        rebound, changed in place, nor handed to a call that may change it."""
        return f"{name}@@{self.epochs.get(name, 0)}"

    def defined(self, name: str, node: cst.CSTNode) -> None:
        self.defs[name] = self.model.order.get(node, id(node))

    # ------------------------------------------------------------ expressions
    def of(self, node: cst.BaseExpression, depth: int = 0) -> Optional[_Known]:
        if depth > _MAX_EXPR_DEPTH:
            return None
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
            return node.value, False
        if isinstance(node, cst.Name):
            return self._name(node)
        if isinstance(node, cst.Attribute):
            qual = self.model.qualname(node)
            if qual is not None:
                self._imported.add(qual)
                return qual, False
            base = self.of(node.value, depth + 1)
            if base is None:
                return None
            if base[1] and isinstance(node.value, cst.Name) and self.is_global(node.value):
                # `args.lr` of an object whose arrays may differ from another built alike
                # (`args = Config(...)` of a class of this file, or one handed to a call
                # since): the same object, untouched since, holds the same attribute.
                return self._intern(f"{self.identity(node.value.value)}.{node.attr.value}"), False
            return self._intern(f"{base[0]}.{node.attr.value}"), base[1]
        if isinstance(node, cst.UnaryOperation):
            inner = self.of(node.expression, depth + 1)
            op = type(node.operator).__name__
            return None if inner is None else (self._intern(f"{op}({inner[0]})"), inner[1])
        if isinstance(node, cst.BinaryOperation):
            left, right = self.of(node.left, depth + 1), self.of(node.right, depth + 1)
            if left is None or right is None:
                return None
            op = type(node.operator).__name__
            return self._intern(f"{op}({left[0]},{right[0]})"), left[1] or right[1]
        if isinstance(node, (cst.Tuple, cst.List)):
            parts = [self.of(e.value, depth + 1) if isinstance(e, cst.Element) else None
                     for e in node.elements]
            if any(p is None for p in parts):
                return None
            kind = "t" if isinstance(node, cst.Tuple) else "l"
            return self._intern(f"{kind}({','.join(p[0] for p in parts)})"), any(p[1] for p in parts)
        if isinstance(node, cst.Call):
            return self.call(node, depth)[0]
        if isinstance(node, cst.Subscript):
            index = _literal_index(node)
            return None if index is None else self.element(node.value, index, depth + 1)
        return None

    def element(self, value: cst.BaseExpression, index, depth: int = 0) -> Optional[_Known]:
        """`value[index]`, or the `index`-th name of `a, b = value`: a structure-only part
        of a library result (`nnx.split(model)[0]`) is equal whenever the structure is."""
        qual = None
        if isinstance(value, cst.Call):
            known, qual = self.call(value, depth)
        else:
            known = self.of(value, depth)
        if known is None:
            return None
        structure = qual in jax_api.STRUCTURE_ONLY_RESULTS and jax_api.STRUCTURE_ONLY_RESULTS[qual] == index
        return self._intern(f"{known[0]}[{index!r}]"), known[1] and not structure

    def call(self, node: cst.Call, depth: int = 0) -> tuple[Optional[_Known], Optional[str]]:
        """The key of a call's result, and the callee's dotted name where imported."""
        model = self.model
        if any(a.star for a in node.args):
            return None, None
        args = [self.of(a.value, depth + 1) for a in node.args]
        if any(a is None for a in args):
            return None, None
        text = ",".join((a.keyword.value + "=" if a.keyword is not None else "") + k[0]
                        for a, k in zip(node.args, args))
        draws = any(k[1] for k in args)
        qual = model.qualname(node.func) or self.function_alias(node.func)
        if qual is not None:
            kind = call_kind(qual)
            if kind == "varying":
                return None, qual
            if kind == "other" and any(self._mentions_global(a.value) for a in node.args):
                draws = True  # `nnx.Linear(2, 3, rngs=rngs)`: may draw from the object
            if jax_api.STRUCTURE_ONLY_RESULTS.get(qual, -1) is None:
                draws = False
            return (self._intern(f"{qual}({text})"), draws), qual
        if isinstance(node.func, cst.Name):
            bindings = model.scope_of(node.func).lookup(node.func.value)
            if bindings is not None and bindings is model.module_scope.bindings.get(node.func.value) \
                    and any(b.kind in ("def", "class") for b in bindings):
                # A function or class of this file: the same structure from the same
                # arguments, but its code may draw (a model's random init).
                func = self._name(node.func)
                return (self._intern(f"{func[0]}({text})"), True), None
        return None, None

    def function_alias(self, func: cst.BaseExpression) -> Optional[str]:
        """`opti(lr)` where the walk saw `opti = optimizers.adam` (and nothing since): a
        module-level variable holding an imported function is that function."""
        if not isinstance(func, cst.Name) or not self.is_global(func):
            return None
        known = self.known.get(func.value)
        return known[0] if known is not None and known[0] in self._imported else None

    def _name(self, node: cst.Name) -> Optional[_Known]:
        model = self.model
        if node.value in ("True", "False", "None"):
            return node.value, False
        bindings = model.scope_of(node).lookup(node.value)
        if bindings is None:
            qual = model.qualname(node)  # a builtin
            return None if qual is None else (qual, False)
        if bindings is not model.module_scope.bindings.get(node.value):
            return None  # a local variable or parameter: not followed
        if all(b.kind == "import" for b in bindings):
            qual = model.qualname(node)
            if qual is not None:
                self._imported.add(qual)
            return qual or node.value, False
        if any(b.kind in ("def", "class") for b in bindings):
            return f"{node.value}@{self.defs.get(node.value, 0)}", False
        # A variable not rebound since: the same object (changes in place bump its version).
        return self.known.get(node.value, (f"{node.value}#{self.versions.get(node.value, 0)}", False))

    def _mentions_global(self, node: cst.BaseExpression) -> bool:
        stack = [node]
        while stack:
            cur = stack.pop()
            if isinstance(cur, cst.Name) and self.is_global(cur):
                return True
            stack.extend(children(cur))
        return False


def call_kind(qual: str) -> str:
    """"pure" (a library function of its arguments' values), "varying" (a fresh result
    each call: a host generator, a clock, input), or "other" (a library call that may
    keep or draw from what it is given)."""
    parts = qual.split(".")
    if qual.startswith("builtins."):
        return "pure" if parts[-1] in jax_api.PURE_BUILTINS else "varying"
    if not qual.startswith("jax.random.") and (
            jax_api.VARYING_CALL_PARTS & set(parts) or parts[-1].startswith("rand")):
        return "varying"
    return "pure" if qual.startswith(jax_api.PURE_LIBRARIES) else "other"


def _literal_index(node: cst.Subscript):
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    if isinstance(value, cst.Integer):
        return int(value.value, 0)
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus) \
            and isinstance(value.expression, cst.Integer):
        return -int(value.expression.value, 0)
    if isinstance(value, cst.SimpleString):
        return value.value
    return None


def _result_names(model: FileModel, watched: frozenset[str]) -> frozenset[str]:
    """Names a call of a watched name is assigned to (`loss, state = step(state, x)`)."""
    out = set()
    for stmt in model.nodes(cst.Assign, cst.AnnAssign):
        call = _assigned_call(stmt)
        if call is not None and isinstance(call.func, cst.Name) and call.func.value in watched:
            targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
            for target in targets:
                out.update(n.value for n in target_names(target))
    return frozenset(out)


def _assigned_call(stmt: cst.CSTNode) -> Optional[cst.Call]:
    value = getattr(stmt, "value", None)
    return value if isinstance(value, cst.Call) else None


def _module_functions(model: FileModel):
    for stmt in model.module.body:
        if isinstance(stmt, cst.FunctionDef):
            info = model.function_info(stmt)
            if info is not None:
                yield info


def is_wrapper(model: FileModel, call: cst.Call) -> bool:
    """`jax.jit(f)`, `partial(f, x)`: a call that wraps a function without running it."""
    return model.qualname(call.func) in _WRAPPERS


class _Walker:
    def __init__(self, model: FileModel, watched: frozenset[str], writes: dict[int, list[str]],
                 initial: dict[int, list[str]], results: frozenset[str] = frozenset()):
        self.model = model
        self.watched = watched
        self.results = results
        self.writes = writes
        self.initial = initial
        self.events: list[Event] = []
        self.entered: set[cst.CSTNode] = set()
        self._stack: list[cst.CSTNode] = []
        self._selves: list = []  # per entered function: (its `self` parameter, the object) or None
        self.keys = _ValueKeys(model)

    def emit(self, kind: str, name: str, node: cst.CSTNode, target: Optional[cst.CSTNode] = None,
             value: Optional[str] = None) -> None:
        if len(self.events) < _MAX_EVENTS:
            self.events.append(Event(kind, name, node, target, value))

    # ------------------------------------------------------------ statements
    def block(self, body: Iterable[cst.CSTNode], depth: int) -> None:
        for stmt in body:
            if len(self.events) >= _MAX_EVENTS:
                return
            self.statement(stmt, depth)

    def _body(self, node: Optional[cst.CSTNode], depth: int) -> None:
        if node is None:
            return
        body = getattr(node, "body", None)
        if isinstance(body, (list, tuple)):
            # What follows a `break`, `continue`, `return` or `raise` in the same block
            # never runs. (The module's own top level is walked whole: a notebook cell
            # that raises does not stop the cells run after it.)
            self.block(reachable(body), depth)
        elif isinstance(body, cst.CSTNode):
            self._body(body, depth)

    def statement(self, stmt: cst.CSTNode, depth: int) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.small(small, depth)
        elif isinstance(stmt, cst.FunctionDef):
            for dec in stmt.decorators:
                self.expr(dec.decorator, depth)
            self._defined(stmt)
            self._fresh(stmt.name.value, stmt)
            self._closure_reads(stmt)
        elif isinstance(stmt, cst.ClassDef):
            self._body(stmt.body, depth)
            self._defined(stmt)
        elif isinstance(stmt, cst.If):
            self.expr(stmt.test, depth)
            self._body(stmt.body, depth)
            if stmt.orelse is not None:
                if isinstance(stmt.orelse, cst.If):
                    self.statement(stmt.orelse, depth)
                else:
                    self._body(stmt.orelse.body, depth)
        elif isinstance(stmt, (cst.For, cst.While)):
            for _ in range(2):  # two rounds: what runs between them is what goes stale
                if isinstance(stmt, cst.For):
                    self.expr(stmt.iter, depth)
                    self._write(stmt, [stmt.target])
                else:
                    self.expr(stmt.test, depth)
                self._body(stmt.body, depth)
            if stmt.orelse is not None:
                self._body(stmt.orelse.body, depth)
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            self._body(stmt.body, depth)
            for handler in stmt.handlers:
                self._body(handler.body, depth)
            if stmt.orelse is not None:
                self._body(stmt.orelse.body, depth)
            if stmt.finalbody is not None:
                self._body(stmt.finalbody.body, depth)
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                self.expr(item.item, depth)
            self._body(stmt.body, depth)
        elif isinstance(stmt, cst.Match):
            self.expr(stmt.subject, depth)
            for case in stmt.cases:
                self._body(case.body, depth)

    def _defined(self, stmt) -> None:
        name = stmt.name.value
        if any(b.node is stmt for b in self.model.module_scope.bindings.get(name, ())):
            self.keys.defined(name, stmt)

    def small(self, small: cst.CSTNode, depth: int) -> None:
        if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            values = self._values(small, targets)  # what the names held before the value runs
            if small.value is not None:
                self.expr(small.value, depth)  # the value runs before the store
            self._write(small, targets, values)
            for target in targets:
                if isinstance(target, cst.Name) and target.value in self.watched \
                        and not self._same_function_rewrapped(small.value):
                    self._fresh(target.value, small)
            return
        if isinstance(small, cst.Del):
            return  # `del state`: unbinds, reads nothing
        for child in children(small):
            self.expr(child, depth)

    def _values(self, stmt: cst.CSTNode, targets: list) -> dict[str, _Known]:
        """The key of the value each target of an assignment gets, where known: a name,
        an element of a tuple unpacked (`graphdef, state = nnx.split(model)`), or an
        attribute of a module-level object."""
        if not isinstance(stmt, (cst.Assign, cst.AnnAssign)) or stmt.value is None or self._conditional(stmt):
            return {}
        out: dict[str, _Known] = {}
        for target in targets:
            if isinstance(target, cst.Name):
                known = self.keys.of(stmt.value)
                if known is not None:
                    out[target.value] = known
            elif isinstance(target, (cst.Tuple, cst.List)):
                elements = target.elements
                if any(not isinstance(e.value, cst.Name) or isinstance(e, cst.StarredElement) for e in elements):
                    continue
                for i, e in enumerate(elements):
                    known = self.keys.element(stmt.value, i)
                    if known is not None:
                        out[e.value.value] = known
            elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
                known = self.keys.of(stmt.value)
                if known is not None:
                    out[f"{self._object_name(target.value)}.{target.attr.value}"] = known
        return out

    def _write(self, stmt: cst.CSTNode, targets: list, values: Optional[dict[str, _Known]] = None) -> None:
        values = values or {}

        def settled(name: str) -> Optional[str]:
            # Only a value equal in every part (its arrays too) is the same value.
            known = values.get(name)
            return known[0] if known is not None and not known[1] else None

        for name in self.writes.get(id(stmt), ()):
            self.emit("write", name, stmt, value=settled(name))
        for name in self.initial.get(id(stmt), ()):
            self.emit("bind", name, stmt, value=settled(name))
        for target in targets:
            for name in target_names(target):
                if self.keys.is_global(name):
                    self.keys.assign(name.value, values.get(name.value))
            if isinstance(target, (cst.Attribute, cst.Subscript)):
                self._changed_in_place(target)
            if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
                # `self.fn = fn` in a setter the walk entered through `model.assign_fn(...)`
                # writes `model.fn`.
                obj = self._object_name(target.value)
                if obj != target.value.value:
                    self.emit("write", f"{obj}.{target.attr.value}", stmt)

    def _changed_in_place(self, node: cst.BaseExpression) -> None:
        """`obj.a = v`, `obj[i] = v`, `obj.method()`, `obj()`: a module-level object
        changed in place, so what is made from it after may differ."""
        while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
            node = node.value if not isinstance(node, cst.Call) else node.func
        if isinstance(node, cst.Name) and self.keys.is_global(node):
            self.keys.changed(node.value)

    def _conditional(self, stmt: cst.CSTNode) -> bool:
        """A statement under an `if`, `try` or `while`: the walk runs both branches one
        after the other, so the value it holds at a call is not known. The body of
        `if __name__ == "__main__":` is the script's own straight-line code."""
        for anc in self.model.ancestors_past_main_guard(stmt):
            if isinstance(anc, (cst.FunctionDef, cst.Module)):
                return False
            if isinstance(anc, (cst.If, cst.Else, cst.Try, cst.While, cst.Match)):
                return True
        return False

    def _fresh(self, name: str, node: cst.CSTNode) -> None:
        if name in self.watched:
            self.emit("fresh", name, node)

    def _same_function_rewrapped(self, value: Optional[cst.BaseExpression]) -> bool:
        """`step = jax.jit(train_step)` again: jit's cache is keyed by the function, so
        re-wrapping the same `def` does not retrace (checked under jax 0.10.2)."""
        model = self.model
        if not isinstance(value, cst.Call) or model.qualname(value.func) not in TRANSFORMS or not value.args:
            return False
        first = value.args[0].value
        return isinstance(first, cst.Name) and model.resolve_function(first) is not None

    # ------------------------------------------------------------ expressions
    def expr(self, node: cst.CSTNode, depth: int) -> None:
        model = self.model
        stack = [node]
        calls: list[cst.Call] = []
        while stack:
            cur = stack.pop()
            if isinstance(cur, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
                self._closure_reads(cur)
                continue  # runs when called, not here
            if isinstance(cur, cst.Name) and cur.value in self.results and _is_read(model, cur):
                self.emit("read", cur.value, cur)
            if isinstance(cur, cst.Name) and cur.value in self.watched and self._runs(cur):
                info = model.resolve_function(cur)
                self.emit("call", cur.value, cur, info.node if info is not None else None)
            elif isinstance(cur, cst.Attribute) and isinstance(cur.value, cst.Name) \
                    and self._object_name(cur.value) + "." + cur.attr.value in self.watched \
                    and self._runs(cur):
                # `model.forward(x)`: a jitted function an object holds (`self.forward`
                # in a method the walk entered through `model.method()`).
                self.emit("call", self._object_name(cur.value) + "." + cur.attr.value, cur)
            if isinstance(cur, cst.Call):
                calls.append(cur)
            stack.extend(reversed(children(cur)))
        # Arguments run before the call they are passed to: the innermost call first.
        for call in sorted(calls, key=lambda c: -model.order.get(c, 0)):
            q = model.qualname(call.func) or self.keys.function_alias(call.func)
            if q in CLEAR_CACHE_CALLS:
                self.emit("clear", q, call)
                continue
            self._state_effects(call, q)
            if isinstance(call.func, cst.Name):
                info = model.resolve_function(call.func)
            else:
                # `sched.decay()` on an object of a class of this file runs that method
                # (with `self` that object), as does `self.helper()` inside it.
                info = model.method_of_instance(call.func) or model.method_of_self(call.func)
                if info is not None and info.name in self.watched:
                    info = None
            if info is not None and isinstance(info.node, cst.FunctionDef) and info.enclosing is None \
                    and info.name not in self.watched:
                obj = None
                if info.is_method and isinstance(call.func, cst.Attribute) \
                        and isinstance(call.func.value, cst.Name):
                    obj = self._object_name(call.func.value)
                self.function(info, depth + 1, obj)

    def _closure_reads(self, node: cst.CSTNode) -> None:
        """A function or lambda made here that reads a name of `results` from outside
        (`lambda: state`, a nested `def` reading the global `state`): it may run at any
        time from now on, so it counts as reading the name here."""
        if not self.results:
            return
        model = self.model
        for cur in walk(node):
            if isinstance(cur, cst.Name) and cur.value in self.results and _is_read(model, cur):
                scope = model.scope_of(cur)
                if scope.lookup(cur.value) is not scope.bindings.get(cur.value):
                    self.emit("read", cur.value, cur)

    def _state_effects(self, call: cst.Call, qual: Optional[str]) -> None:
        """A method called on a module-level object (`model.eval()`, `rngs()`) may change
        it; a library call that is not pure (`nnx.Linear(2, 3, rngs=rngs)`), or a call of
        this file's code, may draw from the objects it is given."""
        if qual is None:
            self._changed_in_place(call.func)
        if qual is not None and call_kind(qual) == "pure":
            return
        for arg in call.args:
            if isinstance(arg.value, cst.Name) and self.keys.is_global(arg.value):
                self.keys.consumed(arg.value.value)

    def _runs(self, name: cst.CSTNode) -> bool:
        """A call of the name, or the name passed to a call that may run it (a callback);
        `jax.jit(step)` / `partial(step, ...)` only wrap it, unless called at once
        (`jax.jit(step)(x)`)."""
        model = self.model
        node: cst.CSTNode = name
        while True:
            parent = model.parent(node)
            if isinstance(parent, cst.Call) and parent.func is node:
                return True
            if not (isinstance(parent, cst.Arg) and parent.value is node):
                return False
            call = model.parent(parent)
            if not isinstance(call, cst.Call):
                return False
            if model.qualname(call.func) not in _WRAPPERS:
                return True
            node = call  # a wrapped function: does the wrapper run?

    def function(self, info, depth: int, obj: Optional[str] = None) -> None:
        node = info.node
        if depth > _MAX_DEPTH or node in self._stack:
            return
        self.entered.add(node)
        self._stack.append(node)
        self._selves.append((info.positional[0], obj) if obj and info.positional else None)
        self._body(node.body, depth)
        self._selves.pop()
        self._stack.pop()

    def _object_name(self, name: cst.Name) -> str:
        """The module-level object `name` stands for: itself, or for `self` in a method
        entered through `obj.method()`, `obj`."""
        bound = self._selves[-1] if self._selves else None
        if bound is not None and name.value == bound[0]:
            return bound[1]
        return name.value


def runs_between(runs: list[list[Event]], names: frozenset[str], written: str,
                 function: Optional[cst.CSTNode] = None, model: Optional[FileModel] = None) -> Optional[Event]:
    """The first write of `written` that falls between two calls of the same function
    object (one of `names`, resolving to `function` where known), with no fresh
    binding or cache clearing in between.

    With `model`, only where the program then uses what the calls after the write
    return (`_results_used`): a stale call whose results nothing reads changes nothing
    the program does."""
    for events in runs:
        called = False
        pending: Optional[Event] = None
        # The value the name holds, and the one it held at the last call: rebinding
        # it to an equal value (a notebook cell run again) changes nothing traced.
        current: Optional[str] = None
        traced: Optional[str] = None
        quiet = False  # stale, but nothing reads what the stale calls return
        for index, event in enumerate(events):
            if _calls(event, names, function):
                if pending is not None and not quiet and (current is None or current != traced):
                    if model is None or _results_used(model, events, index, names, function):
                        return pending
                    quiet = True
                called, traced, pending = True, current, None
            elif event.kind == "bind" and event.name == written:
                current = event.value
            elif event.kind == "write" and event.name == written:
                current = event.value
                if called:
                    pending = pending or event
            elif (event.kind == "fresh" and event.name in names) or event.kind == "clear":
                called, pending, quiet = False, None, False
    return None


def _calls(event: Event, names: frozenset[str], function: Optional[cst.CSTNode]) -> bool:
    return event.kind == "call" and event.name in names \
        and (function is None or event.target is None or event.target is function)


def _results_used(model: FileModel, events: list[Event], start: int, names: frozenset[str],
                  function: Optional[cst.CSTNode]) -> bool:
    """Whether the program reads what the calls of the function from `events[start]` on
    return, up to a fresh binding of it: a call whose result is not assigned to plain
    names (`print(step(x))`, `self.s = step(x)`) is used; so is a name it is assigned
    to, read before it is rebound, except as an argument of another such call
    (`state = step(state)` in a loop) or to wait for it (`jax.block_until_ready(loss)`
    as a statement), and a module-level variable that still holds one at the end.
    Unknown (the walk stopped early) counts as used."""
    if len(events) >= _MAX_EVENTS:
        return True
    stale = True
    tainted: set[str] = set()
    own: set[int] = set()  # the statements that assign the stale calls' results
    for event in events[start:]:
        if _calls(event, names, function) and stale:
            stmt = _result_assignment(model, event.node)
            if stmt is None:
                return True
            own.add(id(stmt))
            targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
            tainted.update(n.value for t in targets for n in target_names(t))
        elif event.kind == "read" and event.name in tainted:
            if not (stale and _feeds(model, event.node, names)) and not _only_waited_on(model, event.node):
                return True
        elif event.kind in ("write", "bind") and event.name in tainted and id(event.node) not in own \
                and isinstance(event.node, (cst.Assign, cst.AnnAssign, cst.For)):
            tainted.discard(event.name)
        elif (event.kind == "fresh" and event.name in names) or event.kind == "clear":
            stale = False  # later calls trace afresh; reading the old results still counts
    # A module-level variable still holding a stale result when the program ends is
    # what it leaves behind (for the notebook's user, or whoever imports it).
    return any(name in model.module_scope.bindings for name in tainted)


def _result_assignment(model: FileModel, name: cst.CSTNode) -> Optional[cst.CSTNode]:
    """`x, y = step(...)` for the `step` of the call: the assignment whose whole value is
    the call of a plain name, to plain names only (those `_result_names` has the walk
    report reads of); None otherwise."""
    call = model.parent(name)
    if not isinstance(name, cst.Name) or not isinstance(call, cst.Call) or call.func is not name:
        return None  # `obj.step(x)`, `lax.scan(step, ...)`: not followed (`_result_names`)
    stmt = model.parent(call)
    if not isinstance(stmt, (cst.Assign, cst.AnnAssign)) or stmt.value is not call:
        return None
    targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
    for target in targets:
        parts = target.elements if isinstance(target, (cst.Tuple, cst.List)) else [target]
        for part in parts:
            value = part.value if isinstance(part, (cst.Element, cst.StarredElement)) else part
            if not isinstance(value, cst.Name):
                return None
    return stmt


def _feeds(model: FileModel, name: cst.CSTNode, names: frozenset[str]) -> bool:
    """The name passed straight to another call of one of `names`."""
    arg = model.parent(name)
    if not isinstance(arg, cst.Arg) or arg.value is not name:
        return False
    call = model.parent(arg)
    return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in names


def _only_waited_on(model: FileModel, name: cst.CSTNode) -> bool:
    """`jax.block_until_ready(loss)` or `loss.block_until_ready()` as a statement of its
    own: it waits for the value and throws it away."""
    node = model.parent(name)
    if isinstance(node, cst.Attribute) and node.value is name and node.attr.value in jax_api.WAIT_ONLY_METHODS:
        call = model.parent(node)
        return isinstance(call, cst.Call) and call.func is node and isinstance(model.parent(call), cst.Expr)
    child: cst.CSTNode = name
    while isinstance(node, (cst.Element, cst.Tuple, cst.List)):
        child, node = node, model.parent(node)
    if not isinstance(node, cst.Arg) or node.value is not child:
        return False
    call = model.parent(node)
    return isinstance(call, cst.Call) and model.qualname(call.func) in jax_api.WAIT_ONLY_FUNCTIONS \
        and isinstance(model.parent(call), cst.Expr)


def compiles_first(model: FileModel, call: cst.Call) -> bool:
    """Whether `call` runs once, at module level (a notebook's cells run in order), and
    is the first call of a function jitted there, so it compiles its program,
    synchronously, before dispatching it: `@jax.jit def f` then `f(x)`,
    `jf = jax.jit(g)` then `jf(x)`, or `jax.jit(g)(x)`, with nothing calling or handing
    on `f`, `jf` or `g` in between; also through a transform that traces it at the call
    (`jax.vmap(jf)(x)`, `jax.grad(jf)(x)`: `FIRST_CALL_COMPILING_TRANSFORMS`).

    jit caches the compiled program on the identity of the function it wraps:
    `jax.jit(g)` twice compiles once, so an earlier `jax.jit(g)` or `g` handed to
    anything makes the call warm; a plain call `g(x)` of the unjitted `g` runs eagerly
    and compiles nothing for it (checked under jax 0.10.2). Inside a function the same
    call runs again on each call of the function, and a wrapped function made there
    (a lambda, a nested `def`) compiles every time: a timer there never sees a warm
    call, which is a different mistake; such calls are not first calls here.
    """
    if model.function_of(call) is not None or model.in_loop(call) is not None:
        return False
    func = call.func
    # `jax.vmap(jf)(x)`, `jax.grad(jf)(x)`: tracing the transform calls `jf`, so this is
    # `jf`'s first call, and the transform's program of it compiles here.
    while isinstance(func, cst.Call) and model.qualname(func.func) in jax_api.FIRST_CALL_COMPILING_TRANSFORMS \
            and func.args and func.args[0].keyword is None:
        func = func.args[0].value
    if isinstance(func, cst.Call):  # jax.jit(g)(x)
        return _caching_transform(model, func) and _fresh_wrapped(model, func, call)
    if not isinstance(func, cst.Name):
        return False
    binding = model.binding_in_effect(func)
    if binding is None or model.function_of(binding.node) is not None:
        return False
    value = getattr(binding.node, "value", None)
    if binding.function is not None:  # @jax.jit def f
        signature = _jit_signature(model, binding.function, None)
    else:
        signature = _jit_signature(model, None, value) if isinstance(value, cst.Call) else None

    def other_program(read: cst.Name) -> bool:  # `f(x, 10)` before `f(x, 20)`, `n` static
        parent = model.parent(read)
        return isinstance(parent, cst.Call) and parent.func is read and model.function_of(read) is None \
            and _new_static_values(model, call, [parent], signature, signature)

    if _read_between(model, func, binding.order, call, skip=None, eager_ok=False, harmless=other_program):
        return False  # called, or handed on, since it was made
    if binding.function is not None:
        return _jit_decorated(binding.function)
    return isinstance(value, cst.Call) and _caching_transform(model, value) and _fresh_wrapped(model, value, call)


def compiles_each_run(model: FileModel, call: cst.Call) -> bool:
    """Whether `call`, in a function that runs once as far as the file shows and in no
    loop of it, is the first call of a function that this run of the function jitted afresh, so it traces and compiles its
    program, synchronously, every time the function runs: a nested `@jax.jit def step`,
    `jf = jax.jit(h)` or `jax.jit(h)(x)` where `h` is a lambda, a `functools.partial`, a
    `def` nested in the function or a bound method `obj.m` (nothing calling or handing
    on `step` / `jf` in between).

    jit caches its program on the identity of the function it wraps, and each run of the
    enclosing function makes a new one of each of these (`obj.m` makes a new bound
    method on every read). Measured (jax 0.10.2, CPU, a 30-op 200x200 program): the first
    call of a nested `@jax.jit def` took 0.15-0.20 s to return on each of three runs of
    its function, and of `jax.jit(obj.m)` 0.24-0.26 s, fresh or the same `obj` (a warm call:
    9-13 ms waited for); `jax.jit(g)` of a module-level `g` compiled on the first run only
    (0.19 s, then 0.1 ms), so it is not one of these."""
    func = model.function_of(call)
    if func is None or model.in_loop(call) is not None or not _runs_once(model, func):
        return False
    target = call.func
    if isinstance(target, cst.Call):  # jax.jit(h)(x)
        return _caching_transform(model, target) and _made_per_run(model, target.args[0].value, func)
    if not isinstance(target, cst.Name):
        return False
    binding = model.binding_in_effect(target)
    if binding is None or model.function_of(binding.node) is not func:
        return False
    if binding.function is not None:  # a nested @jax.jit def
        fresh = _jit_decorated(binding.function)
    else:
        value = getattr(binding.node, "value", None)
        fresh = isinstance(value, cst.Call) and _caching_transform(model, value) \
            and _made_per_run(model, value.args[0].value, func)
    return fresh and not _read_between(model, target, binding.order, call, skip=None, eager_ok=False)


def _runs_once(model: FileModel, func, depth: int = 0) -> bool:
    """As far as the file shows, `func` runs once: at most one call of it, in no loop, in
    code that runs once in turn (a test, a `main`, a function nothing here calls). One
    that runs again and again (`for method in methods: run(x)`) compiles its program
    again on each run, a waste JAX402 reports, and its timer is meant to time the run,
    which it misses (optax#1298: 0.30 s and 0.27 s printed, each the compile)."""
    from jaxlint.engine.callees import call_sites

    if depth > 3:
        return False
    sites = call_sites(model, func)
    if len(sites) > 1:
        return False
    for site, _ in sites:
        if model.in_loop(site) is not None:
            return False
        outer = model.function_of(site)
        if outer is not None and not _runs_once(model, outer, depth + 1):
            return False
    return True


def _made_per_run(model: FileModel, wrapped: cst.BaseExpression, func) -> bool:
    """A function object that each run of `func` makes anew: a lambda or a
    `functools.partial` written in it, a `def` nested in it, or a bound method `obj.m`
    (an attribute that no import names, read in `func`)."""
    if isinstance(wrapped, cst.Lambda) or isinstance(wrapped, cst.Call) \
            and model.qualname(wrapped.func) == "functools.partial":
        return True
    if isinstance(wrapped, cst.Name):
        info = model.resolve_function(wrapped)
        return info is not None and model.function_of(info.node) is func
    return isinstance(wrapped, cst.Attribute) and model.qualname(wrapped) is None \
        and not isinstance(wrapped.value, cst.Call)


def _jit_decorated(info) -> bool:
    return any(c.via == "decorator" and c.cached for c in info.contexts.values())


def _caching_transform(model: FileModel, call: cst.Call) -> bool:
    transform = TRANSFORMS.get(model.qualname(call.func))
    return transform is not None and transform.cached and bool(call.args) and call.args[0].keyword is None


def _fresh_wrapped(model: FileModel, wrap: cst.Call, call: cst.Call) -> bool:
    """The function `wrap` (`jax.jit(g)`) wraps has compiled nothing before `call`."""
    wrapped = wrap.args[0].value
    if isinstance(wrapped, cst.Lambda) or isinstance(wrapped, cst.Call) \
            and model.qualname(wrapped.func) == "functools.partial":
        return True  # a new function object
    if not isinstance(wrapped, cst.Name):
        return False
    info = model.resolve_function(wrapped)
    eager_ok = info is None or not _jit_decorated(info)
    signature = _jit_signature(model, None, wrap)

    def other_program(read: cst.Name) -> bool:  # `jf = jax.jit(g, static_argnums=1)`, `jf(x, 10)`
        arg = model.parent(read)
        other = model.parent(arg)
        if not (isinstance(arg, cst.Arg) and isinstance(other, cst.Call) and other.args and other.args[0] is arg
                and _caching_transform(model, other)):
            return False
        runs = _calls_of(model, other, call)
        return runs is not None and _new_static_values(model, call, runs, signature,
                                                       _jit_signature(model, None, other))

    return not _read_between(model, wrapped, -1, call, skip=wrap, eager_ok=eager_ok, harmless=other_program)


def _jit_signature(model: FileModel, info, wrap: Optional[cst.Call]):
    """The positional parameters of a jitted function and those its jit makes static:
    `@partial(jax.jit, static_argnums=(2, 3)) def f` (`info`), or
    `jax.jit(g, static_argnums=(2, 3))` (`wrap`). None when not known."""
    from jaxlint.engine.tracing import TransformUse, _kwargs, has_unresolved_static, static_params

    if info is not None:
        found = [c.static for c in info.contexts.values() if c.via == "decorator" and c.cached]
        return (info.positional, found[0]) if len(found) == 1 else None
    transform = TRANSFORMS.get(model.qualname(wrap.func))
    target = wrap.args[0].value if wrap.args and wrap.args[0].keyword is None else None
    wrapped = model.resolve_function(target) if isinstance(target, cst.Name) else None
    if transform is None or wrapped is None:
        return None
    use = TransformUse(transform, _kwargs(wrap, transform), wrap)
    return None if has_unresolved_static(use) else (wrapped.positional, static_params(use, wrapped))


def _calls_of(model: FileModel, wrap: cst.Call, before: cst.Call) -> Optional[list[cst.Call]]:
    """The calls of the jitted function `wrap` makes that run before `before`, at module
    level: `jax.jit(g)(x)` itself, or each call of the name it is bound to. None when it
    may also run elsewhere (handed on, or called in a function)."""
    parent = model.parent(wrap)
    if isinstance(parent, cst.Call) and parent.func is wrap:
        return [parent] if model.order[parent] < model.order[before] else []
    if not isinstance(parent, cst.Assign) or len(parent.targets) != 1 \
            or not isinstance(parent.targets[0].target, cst.Name) or model.function_of(parent) is not None:
        return None
    target = parent.targets[0].target
    bindings = model.scope_of(target).lookup(target.value) or []
    binding = next((b for b in bindings if b.node is parent), None)
    if binding is None:
        return None
    runs = []
    for read in model.names_spelled(target.value):
        if read is target or not _is_read(model, read) or model.scope_of(read).lookup(read.value) is not bindings:
            continue
        node = model.parent(read)
        if not (isinstance(node, cst.Call) and node.func is read) or model.function_of(read) is not None:
            return None
        seen = model.binding_in_effect(read)
        if seen is None:
            return None
        if seen is binding and model.order[node] < model.order[before]:
            runs.append(node)
    return runs


def _new_static_values(model: FileModel, call: cst.Call, earlier: list[cst.Call], mine, theirs) -> bool:
    """Each earlier call passed a stated int other than `call`'s to a parameter static for
    both (`mine`, `theirs`: their jits' signatures): jit caches its program on the function
    and the static values, so those compiled other programs and `call` compiles its own
    (measured, jax 0.10.2: a fresh `jax.jit(g, static_argnums=(2, 3))` called with the
    static values of an earlier call is warm, 0.5 ms; with a new one it compiles, seconds)."""
    if mine is None or theirs is None:
        return False
    params, statics = mine[0], mine[1] & theirs[1]
    values = _stated_statics(model, call, params, statics)
    if not values:
        return False
    for other in earlier:
        before = _stated_statics(model, other, theirs[0], statics)
        if not any(name in before and before[name] != v for name, v in values.items()):
            return False
    return True


def _stated_statics(model: FileModel, call: cst.Call, params: list[str], statics: frozenset[str]) -> dict[str, int]:
    """The stated ints `call` passes to the static parameters of the function it calls."""
    from jaxlint.engine.constants import int_constant

    if any(a.star for a in call.args):
        return {}
    out = {}
    position = 0
    for arg in call.args:
        if arg.keyword is None:
            name = params[position] if position < len(params) else None
            position += 1
        else:
            name = arg.keyword.value
        if name in statics:
            value = int_constant(model, arg.value)
            if value is not None:
                out[name] = value
    return out


def _read_between(model: FileModel, name: cst.Name, after: int, call: cst.Call,
                  skip: Optional[cst.CSTNode], eager_ok: bool, harmless=None) -> bool:
    """A read of the same variable as `name` after order `after` and before `call`
    (outside `skip` and `call` itself). With `eager_ok`, a plain call of it is not one, nor
    is wrapping it in a transform that does not jit it (`jax.vmap(g)`, `jax.grad(g)`): jit's
    cache is keyed on the function it wraps, and those make other function objects
    (measured: `vmap(g)(x)` and `grad(g)(x)` run before, `vmap(jax.jit(g))(x)` still
    compiled, 144 ms returned / 144 ms waited for)."""
    bindings = model.scope_of(name).lookup(name.value)
    end = model.order[call]
    for other in model.names_spelled(name.value):
        at = model.order[other]
        if not after < at < end or other is name or not _is_read(model, other):
            continue
        if skip is not None and any(a is skip for a in model.ancestors(other)):
            continue
        if any(a is call for a in model.ancestors(other)):
            continue
        if model.scope_of(other).lookup(other.value) is not bindings:
            continue
        parent = model.parent(other)
        if eager_ok and isinstance(parent, cst.Call) and parent.func is other:
            continue
        if eager_ok and isinstance(parent, cst.Arg) and parent.keyword is None and parent.star == "":
            wrap = model.parent(parent)
            if isinstance(wrap, cst.Call) and wrap.args and wrap.args[0] is parent \
                    and model.qualname(wrap.func) in jax_api.FIRST_CALL_COMPILING_TRANSFORMS:
                continue
        if harmless is not None and harmless(other):
            continue  # it compiled a program for other static values
        return True
    return False


def _is_read(model: FileModel, name: cst.Name) -> bool:
    """A load of the variable, not a store, a definition, an attribute or a keyword."""
    parent = model.parent(name)
    node: cst.CSTNode = name
    while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
        node, parent = parent, model.parent(parent)  # `a, b = ...`: an unpacking target
    if node is not name and (isinstance(parent, cst.AssignTarget)
                             or isinstance(parent, (cst.For, cst.CompFor)) and parent.target is node):
        return False
    parent = model.parent(name)
    if isinstance(parent, (cst.AssignTarget, cst.Param, cst.ImportAlias, cst.AsName)):
        return False
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is name:
        return False
    if isinstance(parent, cst.Attribute) and parent.attr is name:
        return False
    if isinstance(parent, cst.Arg) and parent.keyword is name:
        return False
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is name:
        return False
    return True
