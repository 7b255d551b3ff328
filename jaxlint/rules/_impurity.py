"""Shared by the impurity rules (JAX101-JAX105): where a name lives relative to a trace.

A traced function runs its Python code once per trace. Whether a side effect in it
is a bug depends on what it touches: state created inside the same trace is
rebuilt on every trace and is fine; state that outlives the trace (a module-level
list, a closed-over counter, `self`, an iterator) sees one trace, not one call.
"""

from __future__ import annotations

from typing import Optional
from weakref import WeakKeyDictionary

import libcst as cst

from jaxlint.engine.model import children, walk

from jaxlint.engine.functions import FunctionInfo

#: Functions that run a Python callable at run time, on concrete values: code in a
#: callable handed to them is not trace-time code.
CALLBACKS: frozenset[str] = frozenset({
    "jax.debug.callback", "jax.pure_callback", "jax.experimental.io_callback",
    "jax.experimental.host_callback.id_tap", "jax.experimental.host_callback.call",
    "jax.experimental.host_callback.id_print",
})

#: Calls in traced code that hand values to the host on every run (a print, a
#: callback): what a jitted function computes is seen even where nothing reads its result.
RUN_TIME_OUTPUTS: frozenset[str] = CALLBACKS | {"jax.debug.print", "jax.debug.breakpoint"}

#: Methods that let a caller run a callable later (not during the trace).
_DEFERRING_METHODS: frozenset[str] = frozenset({"register", "connect", "add_done_callback"})

#: Methods that have a traced function run at trace time but on bound objects:
#: `__init__` and friends write to an object built inside the trace.
INIT_METHODS: frozenset[str] = frozenset({"__init__", "__post_init__", "__new__", "setup",
                                          "__setstate__", "__set_name__"})


def where(func: FunctionInfo) -> str:
    """`under jit`, `in a lax.scan body`, for messages."""
    desc = func.transform_description()
    if desc.startswith("lax."):
        return f"in a {desc} body"
    return f"under {desc}" if desc else "under a JAX transform"


def trace_time_function(model, node: cst.CSTNode, want: str = "traced") -> Optional[FunctionInfo]:
    """The traced function whose trace runs `node`'s code, or None.

    `want` is "traced", "abstract" or "cached", the property the function must have.
    A lambda or nested def inside a traced function that is not itself marked
    traced (a `tree_map` callback, say) still runs at trace time, unless it is
    handed to a host callback, which runs it later on concrete values.
    """
    func = model.function_of(node)
    while func is not None:
        if func.traced:
            if _branch_skipped_when_traced(model, func, node):
                return None
            return func if getattr(func, want) else None
        if not _runs_during_enclosing_call(model, func):
            return None
        func = func.enclosing
    return None


def _branch_skipped_when_traced(model, func: FunctionInfo, node: cst.CSTNode) -> bool:
    """`if rng is None: self.rng = ...` in a helper that every traced caller hands an
    `rng`: `is None` is a Python test, False for the tracer it gets, so the branch
    runs only on the eager path."""
    contexts = list(func.contexts.values())
    if not contexts or any(c.via != "helper" or not isinstance(c.origin, cst.Call) for c in contexts):
        return False
    child = node
    for anc in model.ancestors(node):
        if anc is func.node:
            return False
        if isinstance(anc, cst.If) and child is anc.body:
            param = _none_tested(anc.test)
            if param in func.all_params and all(_passes(func, c.origin, param) for c in contexts):
                return True
        child = anc
    return False


def _none_tested(test: cst.BaseExpression) -> Optional[str]:
    """`p` for `if p is None`."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 \
            and isinstance(test.comparisons[0].operator, cst.Is) and isinstance(test.left, cst.Name) \
            and isinstance(test.comparisons[0].comparator, cst.Name) \
            and test.comparisons[0].comparator.value == "None":
        return test.left.value
    return None


def _passes(func: FunctionInfo, call: cst.Call, param: str) -> bool:
    """Whether `call` gives `param` a value other than `None`."""
    for arg in call.args:
        if arg.star:
            return False
        if arg.keyword is not None and arg.keyword.value == param:
            return not (isinstance(arg.value, cst.Name) and arg.value.value == "None")
    positional = [a for a in call.args if a.keyword is None]
    params = func.positional[1:] if func.is_method and isinstance(call.func, cst.Attribute) else func.positional
    if param in params and params.index(param) < len(positional):
        value = positional[params.index(param)].value
        return not (isinstance(value, cst.Name) and value.value == "None")
    return False


# Per model: FunctionInfo -> whether it runs while its enclosing function runs.
_RUNS_CACHE: "WeakKeyDictionary" = WeakKeyDictionary()


def _runs_during_enclosing_call(model, func: FunctionInfo) -> bool:
    cache = _RUNS_CACHE.setdefault(model, {})
    found = cache.get(func)
    if found is None:
        found = cache[func] = _find_runs_during_enclosing_call(model, func)
    return found


def _find_runs_during_enclosing_call(model, func: FunctionInfo) -> bool:
    """A nested lambda / def that its enclosing function uses as an argument of a call."""
    if func.enclosing is None:
        return False
    node = func.node
    if isinstance(node, cst.Lambda):
        return _passed_to_eager_call(model, node)
    refs = [n for n in model.names_spelled(func.name)
            if model.function_of(n) is func.enclosing and model.order[n] > model.order[node]]
    if not refs:
        return False
    # Every use must be an argument of a call that is not a host callback.
    return all(_passed_to_eager_call(model, r) for r in refs)


def _passed_to_eager_call(model, node: cst.CSTNode) -> bool:
    arg = model.parent(node)
    if not isinstance(arg, cst.Arg) or arg.value is not node:
        return False
    call = model.parent(arg)
    if not isinstance(call, cst.Call):
        return False
    q = model.qualname(call.func)
    if q in CALLBACKS:
        return False
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in _DEFERRING_METHODS:
        return False
    return True


def root_name(expr: cst.BaseExpression) -> Optional[cst.Name]:
    """`a` for `a`, `a.b`, `a.b[0]`, `a[k].c`; None for calls and `x.at[i]`."""
    while True:
        if isinstance(expr, cst.Name):
            return expr
        if isinstance(expr, cst.Attribute):
            if expr.attr.value == "at":
                return None
            expr = expr.value
        elif isinstance(expr, cst.Subscript):
            expr = expr.value
        else:
            return None


def self_name(func: FunctionInfo) -> Optional[str]:
    """The `self` parameter of a method (of the method itself or of the nearest enclosing one)."""
    f = func
    while f is not None:
        if f.is_method and f.positional:
            return f.positional[0]
        f = f.enclosing
    return None


def owner_of(model, name: cst.Name, func: FunctionInfo):
    """Where the binding `name` refers to lives: ("module", None), ("function", F), or None.

    None means a builtin or a name we cannot place.
    """
    value = name.value
    f = func
    while f is not None:
        scope = f.scope
        if value in scope.globals:
            break
        if value in scope.nonlocals:
            f = f.enclosing
            continue
        if value in scope.bindings:
            return ("function", f)
        f = f.enclosing
    if value in model.module_scope.bindings:
        return ("module", None)
    return None


def outlives_trace(model, name: cst.Name, func: FunctionInfo) -> Optional[str]:
    """Whether `name`, used in traced `func`, refers to state that outlives func's trace.

    Returns "module" (a module-level name), "closure" (a variable of an enclosing
    function that is not traced), "outer trace" (a variable of an enclosing traced
    function, seen from inside a nested transform such as a lax body), or None when
    the state is created inside the same trace.
    """
    where_ = owner_of(model, name, func)
    if where_ is None:
        return None
    kind, owner = where_
    if kind == "module":
        return "module"
    if owner is func:
        return None
    # Walk from func up to the owner: each function on the way that is traced on
    # its own (decorator, wrapper, lax body) starts a new trace.
    f = func
    crossed = False
    while f is not None and f is not owner:
        if f.traced and any(c.via != "helper" for c in f.contexts.values()):
            crossed = True
        f = f.enclosing
    if not owner.traced:
        return "closure"
    return "outer trace" if crossed else None


def holds_tracer(model, expr: cst.BaseExpression) -> bool:
    """A traced value, or a tuple / list / dict / f-string holding one.

    The arguments of a call are not looked into: what a call returns is the value
    analysis' business (`to_dot(f)(*tracers)` returns a string).
    """
    stack = [expr]
    while stack:
        node = stack.pop()
        if model.value(node).traced:
            return True
        if isinstance(node, cst.Lambda):
            # `lambda: x` keeps the tracer `x` in its closure.
            own = {p.name.value for p in node.params.params + node.params.kwonly_params
                   + node.params.posonly_params}
            if any(isinstance(n, cst.Name) and n.value not in own and model.value(n).traced
                   for n in walk(node.body)):
                return True
            continue
        if isinstance(node, _HOLDERS):
            stack.extend(c for c in children(node) if isinstance(c, _HOLDERS)
                         or isinstance(c, cst.BaseExpression))
    return False


_HOLDERS = (cst.Tuple, cst.List, cst.Set, cst.Dict, cst.FormattedString, cst.Element,
            cst.DictElement, cst.FormattedStringExpression, cst.StarredElement)


def call_name(model, call: cst.Call) -> str:
    """`print`, `logger.info`, for messages."""
    code = model.module.code_for_node(call.func)
    return " ".join(code.split())
