"""The value analysis: which expressions are traced, static, or unknown.

Each function body is interpreted once per round, statement by statement, with
an environment from names to `Value`s, by the walker the key flow shares
(`engine.flow`). Branches are joined; loop bodies run twice so that loop-carried
values settle. Calls from a traced function to a
function of this file make that function a traced helper, and the analysis
repeats until nothing changes.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.flow import Flow, body
from jaxlint.engine.functions import FunctionInfo, TraceContext, ViaKind
from jaxlint.engine.scopes import BindingKind
from jaxlint.engine.values import (BOX, CONCRETE_ARRAY, EVERY_ITEM, NUMPY_ARRAY, NUMPY_MASK, SCALAR, STATIC, STATIC_CONTAINER, STATIC_OBJECT,
                                   TRACED, TRACED_ARRAY, TRACED_BOX, TRACED_MASK, UNKNOWN, Kind, Shape,
                                   Value, container, join_all, join_envs, make)

_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
             cst.FormattedString)
_ARRAY_ANNOTATIONS = frozenset({
    "jax.Array", "jax.numpy.ndarray", "jaxtyping.Array", "chex.Array", "jax.typing.ArrayLike",
})
# Passing a value to these makes a concrete Python / NumPy value: the conversion
# itself is what the JAX2xx rules report.
_CONVERTING_BUILTINS = frozenset({"int", "float", "complex", "bool", "range", "min", "max"})
_MAX_ROUNDS = 12
_LOGICAL_OPS = (cst.BitAnd, cst.BitOr, cst.BitXor)
_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
_CONSTANT_NAMES = frozenset({"None", "True", "False", "NotImplemented", "Ellipsis"})
#: `isinstance(x, T)` with these: x is a Python scalar on the true side.
_SCALAR_TYPES = frozenset({
    "builtins.int", "builtins.float", "builtins.bool", "builtins.str", "builtins.complex",
    "numbers.Number", "numbers.Real", "numbers.Integral", "builtins.bytes",
})
_CONTAINER_TYPES = frozenset({
    "builtins.dict", "builtins.list", "builtins.tuple", "collections.abc.Mapping",
    "collections.abc.Sequence", "typing.Mapping", "typing.Sequence",
})
_CONTAINER_ANNOTATIONS = _CONTAINER_TYPES | frozenset({
    "typing.Dict", "typing.List", "typing.Tuple", "collections.abc.MutableMapping",
    "typing.MutableMapping", "typing.Iterable", "collections.abc.Iterable",
})
#: Array methods that dicts and lists lack: evidence that a traced value is an array.
_ARRAY_ONLY_METHODS = jax_api.ARRAY_METHODS - frozenset({
    "get", "copy", "pop", "set", "add", "apply", "sort", "index", "count", "view", "__getitem__",
})
_TREE_MAPS = frozenset({"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"})


def analyse(model) -> None:
    ev = _Evaluator(model)
    _guarded(ev.run_module)
    for info in model.functions:
        _guarded(ev.run_function, info)
    for _ in range(_MAX_ROUNDS):
        _upgrade_within(model, ev)
        if not ev.dirty:
            break
        dirty = sorted(ev.dirty, key=lambda f: f.order)
        ev.dirty = set()
        for info in dirty:
            _guarded(ev.run_function, info)


def _guarded(run, *args) -> None:
    """Code nested too deeply for the recursive walk loses its values (unknown), not the file."""
    try:
        run(*args)
    except RecursionError:
        ev = getattr(run, "__self__", None)
        if ev is not None:
            ev.func, ev.yields = None, False


def _upgrade_within(model, ev) -> None:
    """`jax.grad(f)` inside a jitted function traces `f` abstractly too; a `lax.scan`
    body or `lax.cond` branch, or a function wrapped there (`jax.vmap(f)(xs)`), applied
    inside a differentiated function is differentiated with it (reverse mode runs its VJP)."""
    for info in model.functions:
        for key, ctx in list(info.contexts.items()):
            within = ctx.within
            if within is None:
                continue
            if not ctx.abstract and within.abstract:
                info.contexts[key] = ctx = dataclasses.replace(
                    ctx, transforms=within.contexts_transforms() + ctx.transforms,
                    abstract=True, cached=ctx.cached or within.cached)
                ev.mark_dirty(info)
            if not ctx.differentiates and ctx.via in (ViaKind.BODY, ViaKind.WRAPPER) \
                    and within.differentiates:
                reverse = [c for c in within.contexts.values() if c.differentiates
                           and not set(c.transforms) <= jax_api.FORWARD_ONLY_TRANSFORMS]
                if reverse:  # the transforms stay the body's own (`lax.scan` first, as rules read it)
                    info.contexts[key] = dataclasses.replace(ctx, differentiates=True)
                    ev.mark_dirty(info)


def is_array_annotation(model, ann: cst.BaseExpression) -> bool:
    q = model.qualname(ann)
    if q in _ARRAY_ANNOTATIONS:
        return True
    # jaxtyping: Float[Array, "b n"] (but not nnx.Variable[jax.Array], a box)
    if isinstance(ann, cst.Subscript) and ann.slice \
            and (model.qualname(ann.value) or "").startswith("jaxtyping."):
        first = ann.slice[0].slice
        if isinstance(first, cst.Index):
            return model.qualname(first.value) in _ARRAY_ANNOTATIONS
    return False


_State = tuple  # (environment, whether the path has ended)


class _Evaluator(Flow):
    # Loop bodies run twice, each time from the join with the state before the
    # loop (it may run zero times), so that loop-carried values settle.
    loop_passes = 2
    zero_iterations = True

    def __init__(self, model):
        self.model = model
        self.values = model.values
        self.dirty: set[FunctionInfo] = set()
        self.func: Optional[FunctionInfo] = None
        self.env: dict[str, Value] = {}
        self.returns: Optional[Value] = None
        self.yields = False
        # The element value of each `for` loop's iterable, for the passes over its body.
        self.elements: dict[cst.For, object] = {}
        # The value each `self.name = value` assigned, by its target, and the functions
        # that read `self.name`, to run again when one of those values changes.
        self.attribute_values: dict[cst.Attribute, Value] = {}
        self.attribute_readers: dict[str, set[FunctionInfo]] = {}
        self.returning: dict[FunctionInfo, bool] = {}
        self.rebound: dict[str, bool] = {}
        # The methods traced through a transform of the object an expression holds
        # (`jax.jit(layer)`), to run again when the object's value changes.
        self.wrapped_readers: dict[cst.BaseExpression, set[FunctionInfo]] = {}

    def mark_dirty(self, info: FunctionInfo) -> None:
        self.dirty.add(info)
        # Nested functions read this one's environment through their closures.
        for child in info.children:
            if child.traced:
                self.dirty.add(child)

    # ------------------------------------------------------------- entry points
    def run_module(self) -> None:
        self.func = None
        self.env = self.block(self.model.module.body, ({}, False))[0]
        self.model.module_env = self.env

    def run_function(self, info: FunctionInfo) -> None:
        self.func = info
        self.model.untraced_arms.pop(info, None)  # decided again from this run's contexts
        self.env = self.param_values(info)
        self.returns = None
        info.param_values = dict(self.env)
        node = info.node
        if isinstance(node, cst.Lambda):
            self.returns = self.expr(node.body)
        else:
            self.env = self.block(body(node), (self.env, False))[0]
        info.env = self.env
        returns = self.returns if self.returns is not None else SCALAR
        if self.yields:
            returns = UNKNOWN
        if returns != info.returns:
            info.returns = returns
            for caller in info.callers:
                self.dirty.add(caller)
        self.func = None
        self.yields = False

    def param_values(self, info: FunctionInfo) -> dict[str, Value]:
        env: dict[str, Value] = {}
        params = info.all_params
        seen: dict[str, Value] = {}
        self_name = info.positional[0] if info.is_method and info.positional else None
        # A parameter its own jit decorator makes static is a Python value on every path:
        # a transform around the function that hands it a tracer (`vmap(partial(f, x))`)
        # makes the jit raise before the body runs (checked, jax 0.10.2: "Non-hashable
        # static arguments are not supported"); JAX404 reports that call.
        pinned = frozenset().union(*(c.static for c in info.contexts.values()
                                     if c.via is ViaKind.DECORATOR and c.abstract))
        for ctx in info.contexts.values():
            given = dict(ctx.arg_values) if ctx.arg_values is not None else None
            for p in params:
                if p == self_name and ctx.via is ViaKind.WRAPPER and given is None \
                        and self.wrapped_instance(info, ctx) is not None:
                    v = self.wrapped_instance(info, ctx)  # `jax.jit(layer)`: that very object
                elif p in ctx.static or p in pinned:
                    # A helper's static argument keeps what the call passes (a list, a NumPy array).
                    v = given[p] if given is not None and p in given and given[p].static else STATIC
                elif p == self_name and ctx.via is not ViaKind.DECORATOR:
                    if given is None or p not in given:
                        continue  # `self` is an object, not an array: its fields are unknown
                    v = given[p]  # an object whose fields the call site knows
                elif given is not None and (p in given or ctx.via not in (ViaKind.WRAPPER, ViaKind.BODY)):
                    if p not in given:
                        if p in info.defaults:
                            v = self.default_value(info, p)
                        else:
                            continue
                    else:
                        v = given[p]
                        if v.traced and not ctx.abstract and not ctx.differentiates:
                            continue
                        v = self.refine(info, p, v)
                elif ctx.traced_params is None or p in ctx.traced_params:
                    if not ctx.abstract and not ctx.differentiates:
                        continue
                    v = self.traced_param(info, p, ctx)
                elif ctx.via is ViaKind.HELPER and p in info.defaults:
                    v = STATIC
                else:
                    continue
                seen[p] = v if p not in seen else _join_traces(seen[p], v)
        for p in params:
            env[p] = self.from_sites(info, p, seen.get(p, UNKNOWN))
            if not info.traced and p != self_name:
                env[p] = self.object_from_sites(info, p, env[p])
                env[p] = self.host_data_from_sites(info, p, env[p])
        if not info.traced:
            for p, ann in info.annotations.items():
                if is_array_annotation(self.model, ann):
                    # A Pallas kernel's `*_ref` parameters are Refs, often annotated jax.Array.
                    env[p] = BOX if p.endswith("_ref") and self.model.mentions("jax.experimental.pallas") \
                        else CONCRETE_ARRAY
        return env

    def wrapped_instance(self, info: FunctionInfo, ctx: TraceContext) -> Optional[Value]:
        """`jax.jit(layer)` / `jax.jit(layer.apply)`: the object whose method the transform
        traces, with the fields its constructor stored (the trace captures them as they are:
        a concrete array stays one, and a jnp operation on it gives a tracer)."""
        from jaxlint.engine.tracing import transform_for, wrapped_target

        if ctx.via is not ViaKind.WRAPPER or not isinstance(ctx.origin, cst.Call):
            return None
        expr = wrapped_target(ctx.origin)
        while isinstance(expr, cst.Call) and transform_for(self.model, self.model.qualname(expr.func)):
            expr = wrapped_target(expr)
        if isinstance(expr, cst.Attribute):
            expr = expr.value
        self.wrapped_readers.setdefault(expr, set()).add(info)
        v = self.values.get(expr)
        if v is None or v.shape is not Shape.OBJECT or not v.entries or v.cls is not info.klass:
            return None
        return v

    def from_sites(self, info: FunctionInfo, p: str, v: Value) -> Value:
        """A traced parameter of unknown sort that every call in this file passes a
        box, or a container, is one: `inc(v)` with `v = nnx.Variable(...)`."""
        if not v.traced or v.shape is not Shape.UNKNOWN or v.cls is not None or not info.sites:
            return v
        shapes = set()
        keys = set()
        for values in info.sites.values():
            given = dict(values)
            if p not in given:
                return v
            shapes.add((given[p].shape, given[p].cls))
            keys.add(tuple(k for k, _ in given[p].entries) if given[p].entries is not None else None)
        if all(dict(values)[p].boolean and dict(values)[p].shape in (Shape.NUMPY, Shape.ARRAY)
               for values in info.sites.values()):
            return TRACED_MASK  # `jit(f)(x, np.ones(n, dtype=bool))`: a traced mask in the trace
        if len(shapes) == 1:
            shape, cls = shapes.pop()
            if shape in (Shape.BOX, Shape.CONTAINER):
                # A list or tuple of the same length at every call (its positions are its
                # keys): still a Python sequence in the trace, of traced leaves.
                sequence = keys.pop() if len(keys) == 1 and cls is None else None
                if sequence is not None and not all(isinstance(k, int) for k in sequence):
                    sequence = None
                entries = tuple((k, TRACED) for k in sequence) if sequence else None
                return make(Kind.TRACED, shape, cls=cls, entries=entries)
            if shape is Shape.OBJECT and cls is not None:
                # `step(Model(...), x)`: an object of a class of this file (an nnx Module),
                # known only so that `model(x)` reaches `Model.__call__`.
                return make(Kind.UNKNOWN, Shape.OBJECT, cls=cls)
        return v

    def object_from_sites(self, info: FunctionInfo, p: str, v: Value) -> Value:
        """A parameter of a function run outside any trace that every call in this file
        passes an object of the same class of this file: `run_trials(agent, ...)` with
        `agent = Learner()`, so that `agent.update(...)` reaches `Learner.update`."""
        if v != UNKNOWN or not info.sites:
            return v
        classes = set()
        for values in info.sites.values():
            given = dict(values).get(p)
            if given is not None and given.shape is Shape.CONTAINER and given.cls is None \
                    and given.entries and len(given.entries) == 1 and given.entries[0][0] is EVERY_ITEM:
                item = given.entries[0][1]  # `[Member(...) for i in range(5)]`: a list of them
                if item.shape in (Shape.OBJECT, Shape.CONTAINER) and item.cls is not None:
                    classes.add(("list", item.shape, item.cls))
                    continue
            if given is None or given.shape is not Shape.OBJECT or given.cls is None:
                return v
            classes.add(given.cls)
        if len(classes) != 1:
            return v
        klass = classes.pop()
        if isinstance(klass, tuple):
            member = make(Kind.UNKNOWN, klass[1], cls=klass[2])
            return make(Kind.UNKNOWN, Shape.CONTAINER, entries=((EVERY_ITEM, member),))
        return make(Kind.UNKNOWN, Shape.OBJECT, cls=klass)

    def host_data_from_sites(self, info: FunctionInfo, p: str, v: Value) -> Value:
        """A parameter of a function run outside any trace that every call in this file
        passes a Python list or tuple (of the same length), or every call a NumPy array:
        `run(data, i)` with `data = [a, b]`, so that `jax.jit(pick)(xs, i)` in `run` hands
        `pick` a list (whose items jit traces one by one), and a NumPy array stays one."""
        if v != UNKNOWN or not info.sites:
            return v
        given = [dict(values).get(p) for values in info.sites.values()]
        if any(g is None or not _host_data(g) for g in given):
            return v
        if len({g.shape for g in given}) != 1:
            return v
        joined = join_all(given)
        return joined if _host_data(joined) else v

    def record_site(self, node: cst.Call, arg_values: list[Value]) -> None:
        """Remember what this file passes to a traced function it calls from outside a trace:
        `f(xs, i)`, also through a transform applied where it is called
        (`jax.jit(f)(xs, i)`, or `step(xs, i)` with `step = jax.jit(f)` bound once)."""
        model = self.model
        callee = model.resolve_function(node.func)
        shift = 0
        klass = model.resolve_class(node.func) if callee is None else None
        if klass is not None:
            callee, shift = klass.methods.get("__init__"), 1  # `Kernel(MLP(...))` runs `__init__`
            if callee is None:
                return
        if callee is None:
            from jaxlint.engine.tracing import resolve_callable

            target = node.func
            if isinstance(target, cst.Name):
                bound_to = model.assigned_values(target)
                target = bound_to[0] if bound_to is not None and len(bound_to) == 1 else None
            found = resolve_callable(model, target, []) if isinstance(target, cst.Call) else None
            if found is not None and found[1]:
                callee, _, shift, _ = found
        if callee is None or callee is self.func:
            return
        if not callee.traced and not any(v.shape is Shape.OBJECT and v.cls is not None or _objects(v)
                                         or _host_data(v) for v in arg_values):
            return  # an untraced function keeps only the objects and host data it is handed
        bound = _bind_arguments(callee, node, arg_values, shift)
        if bound is None:
            return
        values = tuple(sorted(bound.items()))
        if callee.sites.get(node) != values:
            callee.sites[node] = values
            self.mark_dirty(callee)

    def refine(self, info: FunctionInfo, p: str, v: Value) -> Value:
        """An argument's value, sharpened by the parameter's annotation when the
        annotation says what sort of thing it is (a list, a box, a pytree class)."""
        ann = info.annotations.get(p)
        if ann is None or v.shape is not Shape.UNKNOWN or v.cls is not None:
            return v
        a = annotation_value(self.model, ann, traced=v.traced)
        if a.shape in (Shape.CONTAINER, Shape.BOX) or a.cls is not None:
            return make(v.kind, a.shape, cls=a.cls)
        return v

    def default_value(self, info: FunctionInfo, p: str) -> Value:
        d = info.defaults[p]
        if isinstance(d, _LITERALS) or (isinstance(d, cst.Name) and d.value in _CONSTANT_NAMES):
            return SCALAR
        held = self.values.get(d)
        if held is not None and held.shape is Shape.OBJECT and held.cls is not None:
            # `generator=DEFAULT_GENERATOR`: the default is evaluated once, where the def
            # runs, so a call leaving it out hands the function that very object.
            return held
        return STATIC

    def traced_param(self, info: FunctionInfo, p: str, ctx: TraceContext) -> Value:
        """A traced parameter: an array, or a pytree whose leaves are tracers."""
        if ctx.refs:
            return TRACED_BOX  # a Pallas kernel's arguments are Refs
        if ctx.arrays_only:
            # filter_jit: a Python int stays static, so only an array annotation, or an
            # array at every call this file makes, says traced. An `int` / `float` / `bool`
            # annotation says a Python scalar: static under filter_jit (it is traced only by
            # jit, which turns every argument into an array).
            ann = info.annotations.get(p)
            scalar = ann is not None and self.model.qualname(ann) in jax_api.SCALAR_ANNOTATIONS
            v = annotation_value(self.model, ann, traced=True) if ann is not None and not scalar else UNKNOWN
            if v.shape is Shape.ARRAY:
                return v
            given = [dict(values).get(p) for values in info.sites.values()]
            if given and all(g is not None and g.shape is Shape.ARRAY for g in given):
                return TRACED_ARRAY
            return UNKNOWN
        if p == info.vararg or p == info.kwarg:
            return make(Kind.TRACED, Shape.CONTAINER)
        ann = info.annotations.get(p)
        if ann is None and info.is_method and info.klass.pytree and info.positional[:1] == [p] \
                and not _is_classmethod(info):
            return make(Kind.TRACED, Shape.CONTAINER, cls=info.klass)  # a jitted method's pytree `self`
        if ann is None:
            return TRACED
        return annotation_value(self.model, ann, traced=True)

    # --------------------------------------------------------------- statements
    # The walk itself is the shared `Flow`; a state is (environment, ended). Each
    # hook makes the state's environment current, evaluates, and hands it back.
    def copy(self, s: "_State") -> "_State":
        return dict(s[0]), s[1]

    def join(self, a: "_State", b: "_State") -> "_State":
        return join_envs(a[0], b[0]), False

    def ended(self, s: "_State") -> bool:
        return s[1]

    def end(self, s: "_State") -> "_State":
        return s[0], True

    def resume(self, s: "_State", entry: "_State") -> "_State":
        # The values where the path stopped flow on (a `break`, an exception).
        return s[0], False

    def simple(self, small: cst.BaseSmallStatement, s: "_State") -> "_State":
        self.env = s[0]
        self.small(small)
        return self.env, False

    def header(self, node: cst.CSTNode, s: "_State") -> "_State":
        self.env = s[0]
        t = type(node)
        if t is cst.If:
            self.expr(node.test)
        elif t is cst.For:
            self.elements[node] = self.iter_element(node.iter, self.expr(node.iter))
        elif t is cst.With:
            for item in node.items:
                v = self.expr(item.item)
                if item.asname is not None:
                    self.assign(item.asname.name, UNKNOWN if not v.static else v, None)
        elif t is cst.Match:
            self.expr(node.subject)
        elif t is cst.MatchCase:
            self.expr(node.guard)
        return self.env, False

    def iteration(self, loop: cst.CSTNode, s: "_State") -> "_State":
        self.env = s[0]
        if isinstance(loop, cst.For):
            self.assign_element(loop.target, self.elements[loop])
        else:
            self.expr(loop.test)
        return self.env, False

    def split(self, test: cst.BaseExpression, s: "_State") -> tuple["_State", "_State"]:
        true, false = self.narrow(test, s[0])
        taken = self.traced_outcome(test, s[0])
        return (dict(true), taken is False), (dict(false), taken is True)

    def traced_outcome(self, test: cst.BaseExpression, env: dict) -> Optional[bool]:
        """The value of an `if` test (or a conditional expression's) in every trace of the
        function being run, or None. The arm the trace never takes is not evaluated (its
        values stay unknown) and is recorded in `model.untraced_arms` for the rules that
        read code rather than values."""
        from jaxlint.engine.live_branches import test_outcome

        taken = test_outcome(self.model, self.func, test, env)
        if taken is None:
            return None
        parent = self.model.parent(test)
        if isinstance(parent, (cst.If, cst.IfExp)) and parent.test is test:
            arm = parent.orelse if taken else parent.body
        elif isinstance(parent, cst.BooleanOperation) and parent.left is test \
                and taken is isinstance(parent.operator, cst.Or):
            arm = parent.right  # `False and x > 0`: Python never evaluates the right side
        else:
            arm = None
        if arm is not None:
            self.model.untraced_arms.setdefault(self.func, set()).add(arm)
        return taken

    def handler(self, handler: cst.ExceptHandler, s: "_State") -> "_State":
        self.env = s[0]
        if handler.type is not None:
            self.expr(handler.type)
        if handler.name is not None:
            self.assign(handler.name.name, UNKNOWN, None)
        return self.env, False

    def define(self, node: cst.CSTNode, s: "_State") -> "_State":
        self.env = s[0]
        for dec in node.decorators:
            self.expr(dec.decorator)
        if isinstance(node, cst.FunctionDef):
            self.params_defaults(node.params)
        else:
            for base in node.bases:
                self.expr(base.value)
            if self.func is None:
                # Class bodies at module level: evaluate statements for the index,
                # in a scratch environment.
                saved = self.env
                self.block(body(node), (dict(saved), False))
                self.env = saved
        self.env[node.name.value] = STATIC_OBJECT
        return self.env, False

    def narrow(self, test: cst.BaseExpression, env: dict) -> tuple[dict, dict]:
        """The environments where `test` is true and where it is false.

        `x is None` makes `x` None on its true side; `isinstance(x, jax.core.Tracer)`
        false means an eager path, where `x` is a concrete value; `isinstance(x, int)`
        true means a Python scalar.
        """
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            f, t = self.narrow(test.expression, env)
            return t, f
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            t1, f1 = self.narrow(test.left, env)
            t2, f2 = self.narrow(test.right, t1)
            return t2, join_envs(f1, f2)
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 \
                and isinstance(test.left, cst.Name):
            comp = test.comparisons[0]
            if isinstance(comp.comparator, cst.Name) and comp.comparator.value == "None":
                name = test.left.value
                if env.get(name, UNKNOWN).shape not in (Shape.UNKNOWN, Shape.SCALAR):
                    return env, env  # a known array, container or object is never None
                if isinstance(comp.operator, cst.Is):
                    return {**env, name: SCALAR}, env
                if isinstance(comp.operator, cst.IsNot):
                    return env, {**env, name: SCALAR}
        if isinstance(test, cst.Call) and self.model.qualname(test.func) in jax_api.CONCRETENESS_CHECKS \
                and len(test.args) == 1 and isinstance(test.args[0].value, cst.Name):
            return {**env, test.args[0].value.value: CONCRETE_ARRAY}, env
        if isinstance(test, cst.Call) and self.model.qualname(test.func) == "builtins.isinstance" \
                and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name):
            name = test.args[0].value.value
            types = test.args[1].value
            elems = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
            quals = [self.model.qualname(e) for e in elems]
            if any(q in jax_api.TRACER_TYPES for q in quals):
                return env, {**env, name: UNKNOWN}
            if quals and all(q in _SCALAR_TYPES for q in quals):
                return {**env, name: SCALAR}, env
            if quals and all(q in jax_api.NUMPY_VALUE_TYPES for q in quals):
                return {**env, name: NUMPY_ARRAY}, env  # host data: mutable, never a tracer
            if quals and all(q in _SCALAR_TYPES or q in jax_api.NUMPY_VALUE_TYPES for q in quals):
                return {**env, name: CONCRETE_ARRAY}, env  # never a tracer: an eager path
            if quals and all(q in _CONTAINER_TYPES for q in quals):
                old = env.get(name, UNKNOWN)
                return {**env, name: make(old.kind, Shape.CONTAINER)}, env
        return env, env

    def params_defaults(self, params: cst.Parameters) -> None:
        for p in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
            if p.default is not None:
                self.expr(p.default)

    def small(self, node: cst.CSTNode) -> None:
        t = type(node)
        if t is cst.Expr:
            self.expr(node.value)
        elif t is cst.Assign:
            v = self.expr(node.value)
            for target in node.targets:
                self.assign(target.target, v, node.value)
        elif t is cst.AnnAssign:
            if node.value is not None:
                v = self.expr(node.value)
                if is_array_annotation(self.model, node.annotation.annotation):
                    v = make(v.kind, Shape.ARRAY)
                self.assign(node.target, v, node.value)
        elif t is cst.AugAssign:
            v = self.expr(node.value)
            old = self.expr(node.target)
            if isinstance(node.target, cst.Name):
                self.env[node.target.value] = _arith(old, v)
        elif t is cst.Return:
            v = self.expr(node.value) if node.value is not None else SCALAR
            self.returns = v if self.returns is None else self.returns.join(v)
        elif t is cst.Assert:
            self.expr(node.test)
            if node.msg is not None:
                self.expr(node.msg)
        elif t is cst.Raise:
            if node.exc is not None:
                self.expr(node.exc)
        elif t is cst.Del:
            self.expr(node.target)

    def assign(self, target: cst.BaseExpression, v: Value, value_node) -> None:
        if isinstance(target, cst.Name):
            self.env[target.value] = v
            self.values[target] = v
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            starred = any(isinstance(e, cst.StarredElement) for e in elements)
            if isinstance(value_node, (cst.Tuple, cst.List)) and len(value_node.elements) == len(elements) \
                    and not starred:
                for el, src in zip(elements, value_node.elements):
                    self.assign(el.value, self.values.get(src.value, UNKNOWN), src.value)
                return
            if v.entries is not None and not starred and len(v.entries) == len(elements) \
                    and all(k == i for i, (k, _) in enumerate(v.entries)):
                for el, (_, part) in zip(elements, v.entries):
                    self.assign(el.value, part, None)
                return
            ev = _element(v, unpacking=True)
            for el in elements:
                inner = el.value
                if isinstance(el, cst.StarredElement):
                    self.assign(inner, make(ev.kind, Shape.CONTAINER) if ev.kind is not Kind.UNKNOWN
                                else UNKNOWN, None)
                else:
                    self.assign(inner, ev, None)
            return
        if isinstance(target, cst.StarredElement):
            self.assign(target.value, UNKNOWN, None)
            return
        if isinstance(target, cst.Attribute) and self.attribute_values.get(target) != v:
            self.attribute_values[target] = v
            for reader in self.attribute_readers.get(target.attr.value, ()):
                self.mark_dirty(reader)
        # Attribute / Subscript targets: record the values of their parts.
        self.expr(target)

    def iter_element(self, iter_node: cst.BaseExpression, it: Value):
        """The value of one element when iterating `iter_node`."""
        if isinstance(iter_node, cst.Call):
            q = self.model.qualname(iter_node.func)
            args = [a.value for a in iter_node.args if a.keyword is None]
            if q == "builtins.range":
                # range() takes only Python ints (a tracer raises there, JAX2xx's finding),
                # so its elements are Python ints whatever the bounds are known to be.
                return SCALAR
            if q == "builtins.enumerate" and args:
                return ("tuple", [SCALAR, self.iter_element(args[0], self.values.get(args[0], UNKNOWN))])
            if q == "builtins.zip":
                return ("tuple", [self.iter_element(a, self.values.get(a, UNKNOWN)) for a in args])
            if q in ("builtins.reversed", "builtins.sorted", "builtins.list", "builtins.tuple") and args:
                return self.iter_element(args[0], self.values.get(args[0], UNKNOWN))
            if q in jax_api.NUMPY_ARRAY_SEQUENCES and not any(self.values.get(a, UNKNOWN).traced for a in args):
                return NUMPY_ARRAY
            if isinstance(iter_node.func, cst.Attribute):
                base = self.values.get(iter_node.func.value, UNKNOWN)
                meth = iter_node.func.attr.value
                if meth in jax_api.PYTREE_KEY_METHODS:
                    return SCALAR if base.kind is not Kind.UNKNOWN else UNKNOWN
                if meth in jax_api.PYTREE_VALUE_METHODS:
                    return _leaf(base)
                if meth in jax_api.PYTREE_ITEM_METHODS:
                    key = SCALAR if base.kind is not Kind.UNKNOWN else UNKNOWN
                    return ("tuple", [key, _leaf(base)])
        if isinstance(iter_node, (cst.Tuple, cst.List)):
            return join_all(self.values.get(e.value, UNKNOWN) for e in iter_node.elements) \
                if iter_node.elements else STATIC
        return _element(it)

    def assign_element(self, target, elem) -> None:
        if isinstance(elem, tuple):
            _, parts = elem
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == len(parts):
                for el, part in zip(target.elements, parts):
                    self.assign_element(el.value, part)
                return
            self.assign(target, UNKNOWN, None)
            return
        self.assign(target, elem, None)

    # -------------------------------------------------------------- expressions
    def expr(self, node: cst.BaseExpression) -> Value:
        v = self._expr(node)
        if node in self.wrapped_readers and self.values.get(node) != v:
            for reader in self.wrapped_readers[node]:
                self.mark_dirty(reader)
        self.values[node] = v
        return v

    def _expr(self, node) -> Value:
        t = type(node)
        if t is cst.Name:
            return self.lookup(node)
        if t in _LITERALS:
            if t is cst.FormattedString:
                for part in node.parts:
                    if isinstance(part, cst.FormattedStringExpression):
                        self.expr(part.expression)
            elif t is cst.ConcatenatedString:
                self.expr(node.left)
                self.expr(node.right)
            return SCALAR
        if t is cst.Attribute:
            return self.attribute(node)
        if t is cst.Call:
            return self.call(node)
        if t is cst.BinaryOperation:
            left, right = self.expr(node.left), self.expr(node.right)
            if isinstance(node.operator, cst.Modulo) and isinstance(node.left, _STRINGS):
                return SCALAR  # "%s" % x formats; it never converts
            v = _arith(left, right)
            if v.traced and isinstance(node.operator, _LOGICAL_OPS) and (left.boolean or right.boolean):
                return TRACED_MASK
            return v
        if t is cst.UnaryOperation:
            v = self.expr(node.expression)
            if isinstance(node.operator, cst.Not):
                return SCALAR if v.static else UNKNOWN
            if isinstance(node.operator, cst.BitInvert) and v.boolean:
                return v  # `~mask` is the complement: still a boolean array of the same kind
            return _arith(v, SCALAR)
        if t is cst.BooleanOperation:
            left = self.expr(node.left)
            if self.traced_outcome(node.left, self.env) is isinstance(node.operator, cst.Or):
                return left  # short circuit: the right side is never traced
            return left.join(self.expr(node.right))
        if t is cst.Comparison:
            return self.comparison(node)
        if t is cst.Subscript:
            return self.subscript(node)
        if t is cst.IfExp:
            self.expr(node.test)
            taken = self.traced_outcome(node.test, self.env)
            if taken is not None:
                return self.expr(node.body if taken else node.orelse)
            return self.expr(node.body).join(self.expr(node.orelse))
        if t is cst.Tuple or t is cst.List:
            vals = [self.expr(el.value) for el in node.elements]
            if any(isinstance(el, cst.StarredElement) for el in node.elements):
                return container(vals)
            return container(vals, entries=tuple(enumerate(vals)))
        if t is cst.Set:
            return container([self.expr(el.value) for el in node.elements])
        if t is cst.Dict:
            vals, entries, unpacked = [], [], []
            for el in node.elements:
                if isinstance(el, cst.DictElement):
                    k = self.expr(el.key)
                    v = self.expr(el.value)
                    vals.extend((k, v))
                    if entries is not None and isinstance(el.key, cst.SimpleString):
                        entries.append((el.key.evaluated_value, v))
                    else:
                        entries = None
                else:
                    v = self.expr(el.value)
                    vals.append(v)
                    entries = None
                    unpacked.append(v)
            if any(v.traced for v in vals) and any(not v.traced for v in unpacked):
                # `{**mapped, **unmapped}`: any key may come from the part that holds no
                # tracer, so no entry read from the merged dict is known to be traced.
                return make(Kind.UNKNOWN, Shape.CONTAINER)
            return container(vals, entries=tuple(entries) if entries is not None else None)
        if t is cst.NamedExpr:
            v = self.expr(node.value)
            self.assign(node.target, v, node.value)
            return v
        if t in (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp):
            return self.comprehension(node)
        if t is cst.Lambda:
            self.params_defaults(node.params)
            return STATIC_OBJECT
        if t is cst.StarredElement:
            return self.expr(node.value)
        if t is cst.Yield:
            self.yields = True
        if t is cst.Await or t is cst.Yield:
            inner = getattr(node, "expression", None) or getattr(node, "value", None)
            if isinstance(inner, cst.BaseExpression):
                self.expr(inner)
            return UNKNOWN
        if t is cst.Ellipsis:
            return SCALAR
        return UNKNOWN

    def lookup(self, node: cst.Name) -> Value:
        name = node.value
        v = self.env.get(name)
        if v is not None:
            return v
        func = self.func
        if func is not None:
            if name in func.scope.bindings and name not in func.scope.globals:
                return UNKNOWN  # local, not bound yet on this path
            enc = func.enclosing
            while enc is not None:
                v = enc.env.get(name)
                if v is not None:
                    return v
                enc = enc.enclosing
            v = self.model.module_env.get(name)
            if v is not None:
                return UNKNOWN if self.rebound_in_function(name) else v
        bindings = self.model.scope_of(node).lookup(name)
        if bindings is None:
            # A builtin: True, None, len, ...
            return SCALAR if name in _CONSTANT_NAMES else STATIC_OBJECT
        if all(b.kind in ("def", "class") for b in bindings):
            return STATIC_OBJECT
        if all(b.kind == "import" for b in bindings):
            return STATIC  # a module, or an imported value of unknown sort
        return UNKNOWN

    def rebound_in_function(self, name: str) -> bool:
        """A module name a function rebinds through `global`: its module value may be stale."""
        found = self.rebound.get(name)
        if found is None:
            found = self.rebound[name] = any(
                self.model.function_of(n) is not None for n in self.model.global_writes.get(name, ()))
        return found

    def attribute(self, node: cst.Attribute) -> Value:
        base = self.expr(node.value)
        attr = node.attr.value
        getter = self.property_getter(base, attr)
        if getter is not None:
            # Reading a property runs its getter on the object, as `obj.getter()` would.
            self.add_context(getter, node, ((getter.positional[0], base),))
            if getter.returns is not None and getter.returns.traced:
                return getter.returns
        if base.shape is Shape.OBJECT and base.entry(attr) is not None:
            return base.entry(attr)  # what `__init__` stored from its argument
        if base.shape is Shape.OBJECT and base.cls is not None and not base.cls.pytree:
            # `self.nn.param`: what every `self.param = ...` of the object's class stores.
            held = self.held_attribute(self.model._class_attribute_targets(base.cls, attr), attr)
            if held is not None:
                return held
        if not base.traced and isinstance(node.value, cst.Name):
            held = self.instance_attribute(node)
            if held is not None:
                return held
        if attr in jax_api.STATIC_ATTRIBUTES and (base.array or base.maybe_tracer):
            return STATIC
        if base.shape is Shape.ARRAY:
            if attr in jax_api.ARRAY_ATTRIBUTES:
                return TRACED_ARRAY if base.traced else CONCRETE_ARRAY
            return UNKNOWN
        if base.shape is Shape.BOX:
            # nnx.Variable.value / a Ref's contents: an array, traced in a trace.
            if attr == "value":
                return TRACED_ARRAY if base.traced else UNKNOWN
            return UNKNOWN
        if base.cls is not None:
            return self.field_value(base, attr)
        if base.traced:
            if attr in jax_api.ARRAY_ATTRIBUTES and base.maybe_tracer:
                return TRACED_ARRAY
            # A field of a traced pytree of unknown class: it may be a static field.
            return UNKNOWN
        if attr in jax_api.STATIC_ATTRIBUTES:
            return UNKNOWN
        if base.static and self.model.qualname(node) is not None:
            return STATIC  # jnp.float32, math.pi, a module attribute
        return STATIC if base.static else UNKNOWN

    def property_getter(self, base: Value, attr: str) -> Optional[FunctionInfo]:
        """The `@property` getter that reading `attr` of an object of a class of this file
        runs in a traced function (the object as `self`), or None."""
        caller = self.func
        if caller is None or not caller.traced or base.cls is None:
            return None
        getter = base.cls.methods.get(attr)
        if getter is None or getter is caller or not getter.positional \
                or not isinstance(getter.node, cst.FunctionDef) \
                or not any(isinstance(d.decorator, cst.Name) and d.decorator.value == "property"
                           for d in getter.node.decorators):
            return None
        if not (base.traced or base.shape is Shape.OBJECT and base.entries):
            return None
        return getter

    def instance_attribute(self, node: cst.Attribute) -> Optional[Value]:
        """What `self.attr` holds in a method, where every `self.attr = value` of the
        class (and of its base classes and subclasses in this file) gives a value that
        is known and not traced: a list, a NumPy array, a Python number, a concrete
        array. None when the model does not know."""
        return self.held_attribute(self.model.attribute_targets(node), node.attr.value)

    def held_attribute(self, targets: Optional[list], attr: str) -> Optional[Value]:
        """The join of what every `self.<attr> = value` at `targets` stores, or None."""
        if not targets:
            return None
        if self.func is not None:
            self.attribute_readers.setdefault(attr, set()).add(self.func)
        values = [self.attribute_values.get(t) for t in targets]
        if any(v is None for v in values):
            return None  # a method not analysed yet: it will run this one again
        v = join_all(values)
        # A traced value stored on `self` is a leaked tracer: another error, not this model's.
        if v.traced or (v.kind is Kind.UNKNOWN and v.shape is Shape.UNKNOWN):
            return None
        return v

    def field_value(self, base: Value, attr: str) -> Value:
        cls = base.cls
        found = base.entry(attr)
        if found is not None:
            return found
        f = cls.fields.get(attr)
        if f is None:
            if getattr(cls, "library", False) and attr not in cls.methods:
                return _leaf(base)
            return UNKNOWN  # a method, a property, or something we do not know
        if f.static:
            return STATIC
        if not base.traced:
            return UNKNOWN if base.kind is Kind.UNKNOWN else STATIC
        if f.annotation is not None:
            return annotation_value(self.model, f.annotation, traced=True)
        return TRACED

    def subscript(self, node: cst.Subscript) -> Value:
        base = self.expr(node.value)
        idx = []
        for el in node.slice:
            s = el.slice
            if isinstance(s, cst.Index):
                idx.append(self.expr(s.value))
            else:
                for part in (s.lower, s.upper, s.step):
                    if part is not None:
                        idx.append(self.expr(part))
        if base.shape is Shape.ARRAY:
            # Under jit, indexing even a concrete JAX array the function captured is staged:
            # `float(TABLE[i])` gets a tracer (measured, jax 0.10.2).
            if base.traced or any(v.traced for v in idx) or (self.func is not None and self.func.abstract):
                return TRACED_ARRAY
            return CONCRETE_ARRAY
        if base.shape is Shape.OBJECT and base.cls is not None and len(idx) == 1 \
                and isinstance(node.slice[0].slice, cst.Index):
            self.item_call(node, base.cls, idx[0])
            return UNKNOWN
        if base.shape is Shape.BOX:
            return TRACED_ARRAY if base.traced else UNKNOWN
        if base.shape is Shape.CONTAINER and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = _constant_key(node.slice[0].slice.value)
            found = base.entry(key) if key is not None else None
            if found is None and base.entries and (key is None or base.entry(EVERY_ITEM) is not None):
                found = _leaf(base)  # whichever item the index picks, it is one of these
            if found is not None:
                return found
        if base.traced:
            if len(node.slice) > 1 or not isinstance(node.slice[0].slice, cst.Index):
                # x[:, 0], x[1:]: only arrays (and lists, for a plain slice) take these.
                return TRACED_ARRAY if len(node.slice) > 1 else _leaf(base)
            return _leaf(base)
        if base.static and all(v.static for v in idx):
            return STATIC
        return UNKNOWN

    def item_call(self, node: cst.Subscript, klass, index: Value) -> None:
        """`obj[i]` on an object of a class of this file runs `type(obj).__getitem__(obj, i)`:
        from a traced function, a helper call handing it the index."""
        method = klass.methods.get("__getitem__")
        caller = self.func
        if method is None or caller is None or not caller.traced or len(method.positional) != 2 \
                or _is_classmethod(method) or _is_staticmethod(method):
            return
        self.add_context(method, node, ((method.positional[1], index),))

    def comparison(self, node: cst.Comparison) -> Value:
        vals = [self.expr(node.left)]
        identity = True
        for comp in node.comparisons:
            vals.append(self.expr(comp.comparator))
            if not isinstance(comp.operator, (cst.Is, cst.IsNot)):
                identity = False
        if identity:
            return SCALAR
        if any(isinstance(c.operator, (cst.In, cst.NotIn)) for c in node.comparisons):
            return SCALAR if all(v.static for v in vals) else UNKNOWN
        if len(vals) == 2 and isinstance(node.comparisons[0].operator, (cst.Equal, cst.NotEqual)) \
                and (_python_container(vals[0]) and _python_scalar(vals[1])
                     or _python_scalar(vals[0]) and _python_container(vals[1])):
            # `(a, b) == 255` compares no element: a tuple, list or dict is never equal to a
            # number, str or None, so it is a Python bool even when it holds tracers (checked
            # under jax 0.10.2; `(a, b) == (c, d)` does compare the tracers, and raises).
            return SCALAR
        if any(v.maybe_tracer for v in vals):
            return TRACED_MASK
        if all(v.static for v in vals):
            return SCALAR
        return UNKNOWN

    def comprehension(self, node) -> Value:
        saved = dict(self.env)
        comp = node.for_in
        while comp is not None:
            it = self.expr(comp.iter)
            self.assign_element(comp.target, self.iter_element(comp.iter, it))
            for cond in comp.ifs:
                self.expr(cond.test)
            comp = comp.inner_for_in
        if isinstance(node, cst.DictComp):
            vals = [self.expr(node.key), self.expr(node.value)]
            self.env = saved
            return container(vals)
        elt = self.expr(node.elt)
        self.env = saved
        return container([elt], entries=((EVERY_ITEM, elt),))

    # -------------------------------------------------------------------- calls
    def call(self, node: cst.Call) -> Value:
        self.expr(node.func)
        args = [self.expr(a.value) for a in node.args]
        positional = [v for a, v in zip(node.args, args) if a.keyword is None and not a.star]
        q = self.model.qualname(node.func)
        in_abstract = self.func is not None and self.func.abstract
        # grad / jvp keep values concrete, yet what JAX computes from a JVP tracer is one
        # too (stored outside, it leaks like any tracer).
        differentiating = not in_abstract and self.func is not None and self.func.differentiates \
            and any(v.traced for v in args)
        if q is not None:
            if q.startswith("builtins."):
                return self.builtin_call(node, q[9:], args)
            if q in jax_api.STATIC_ARRAY_FUNCTIONS:
                return STATIC
            if q in jax_api.COLLECTIVES:
                if positional and positional[0].shape is Shape.SCALAR and positional[0].static:
                    return SCALAR  # lax.psum(1, "i") is the axis size, a Python int
                return _mirror(positional[0] if positional else UNKNOWN, in_abstract)
            if q in jax_api.PRIMAL_VALUE_FUNCTIONS and not in_abstract and positional:
                # stop_gradient of a JVP tracer is its primal: concrete under grad alone.
                return _concrete_like(positional[0])
            if q in jax_api.PYTREE_PRESERVING:
                return _mirror(positional[0] if positional else UNKNOWN, in_abstract)
            if q in jax_api.CONTROL_FLOW_RESULTS:
                self.tree_callback(node, q)
                self.body_structures(node, q, args)
                if not (in_abstract or any(v.traced for v in args)):
                    return UNKNOWN
                if q == "jax.lax.scan":
                    return make(Kind.TRACED, Shape.CONTAINER, entries=((0, TRACED), (1, TRACED)))
                return TRACED
            if q.startswith(jax_api.TREE_MODULES):
                self.tree_callback(node, q)
                return UNKNOWN
            if q in jax_api.BOX_CLASSES or q in jax_api.REF_CONSTRUCTORS:
                return TRACED_BOX if in_abstract else BOX
            if jax_api.array_module_function(q):
                if not in_abstract and not differentiating:
                    return CONCRETE_ARRAY
                return TRACED_MASK if q in jax_api.BOOLEAN_FUNCTIONS else TRACED_ARRAY
            if q in jax_api.NUMPY_ARRAY_CONSTRUCTORS and not any(v.traced for v in args):
                return NUMPY_MASK if _boolean_construction(self.model, node) else NUMPY_ARRAY
            if q in jax_api.NUMPY_FILE_READERS:
                return NUMPY_ARRAY
            if q in jax_api.NUMPY_TO_ARRAY_METHOD and positional and positional[0].traced \
                    and positional[0].shape is Shape.ARRAY:
                return TRACED_ARRAY  # `np.sum(x)` runs `x.sum()`: a tracer again (a dict has no `.sum`)
            root = q.split(".")[0]
            if root in ("numpy", "math", "operator", "functools", "itertools", "string"):
                return STATIC if all(v.static for v in args) else UNKNOWN
        if (in_abstract or differentiating) and q is None:
            compiled = self.compiled_callee(node.func)
            if compiled is not None:
                self.helper_call(node, args)
                if compiled.returns is SCALAR and not self.returns_a_value(compiled):
                    return SCALAR  # None, as a function without `return x` gives
                return _transformed_output(compiled.returns)
        klass = self.model.resolve_class(node.func)
        if klass is not None:
            self.helper_call(node, args)
            if self.func is None or not self.func.traced:
                self.record_site(node, args)
            if klass.box:
                return TRACED_BOX if in_abstract else BOX
            if klass.pytree:
                return container(args, cls=klass)
            # An object of a class of this file: calling it runs its `__call__`.
            return make(Kind.UNKNOWN, Shape.OBJECT, cls=klass, entries=self.init_fields(klass, node, args))
        if isinstance(node.func, cst.Attribute):
            base = self.values.get(node.func.value, UNKNOWN)
            meth = node.func.attr.value
            if meth == "replace" and base.cls is not None:
                return make(base.kind if all(a.kind is base.kind for a in args) else Kind.UNKNOWN
                            if not base.traced else Kind.TRACED, Shape.CONTAINER, cls=base.cls)
            owner = self.model.resolve_class(node.func.value)
            if owner is not None and owner.pytree and meth in owner.methods \
                    and _is_classmethod(owner.methods[meth]):
                return container(args, cls=owner)
            if base.shape is Shape.ARRAY:
                if meth in ("item", "tolist"):
                    return UNKNOWN
                if meth in jax_api.ARRAY_METHODS:
                    return TRACED_ARRAY if base.traced else CONCRETE_ARRAY
                return UNKNOWN
            if base.maybe_tracer and meth in _ARRAY_ONLY_METHODS:
                return TRACED_ARRAY  # only an array has it: x.reshape(...), x.astype(...)
            if base.static and q is None and all(v.static for v in args):
                return STATIC
        if self.func is None or not self.func.traced:
            self.record_site(node, args)
        if isinstance(node.func, cst.Call) and self.model.qualname(node.func.func) in jax_api.LAYER_CLASSES \
                and any(v.traced for v in args):
            return TRACED_ARRAY  # nn.Dense(4)(x)
        if isinstance(node.func, cst.Call) and (in_abstract or differentiating):
            from jaxlint.engine.tracing import transform_for

            # `jax.value_and_grad(f)(x)` / `jax.vmap(f)(x)` inside a trace give traced values.
            wrapper = self.model.qualname(node.func.func)
            if wrapper in jax_api.GRADIENT_OF_FIRST_ARGUMENT and positional and len(node.func.args) == 1 \
                    and node.func.args[0].keyword is None and not node.func.args[0].star:
                return _traced_like(positional[0])
            if transform_for(self.model, wrapper) is not None:
                self.transformed_call(node, args)
                return TRACED
        return self.helper_call(node, args)

    def transformed_call(self, node: cst.Call, args: list[Value]) -> None:
        """`jax.value_and_grad(loss)(params, x, training)` inside a trace: what the transforms
        pass through as it is (an argument grad does not differentiate, one vmap does not
        map, a static one) reaches `loss` as the caller's own value, a tracer where the
        caller's is one (jit, then grad, then `not training`: TracerBoolConversionError,
        checked, jax 0.10.2). The other arguments stay the transform's tracers."""
        from jaxlint.engine import tracing

        found = tracing.resolve_callable(self.model, node.func, [])
        if found is None:
            return
        info, uses, offset, bound = found
        ctx = info.contexts.get(node.func)
        if ctx is None or ctx.via is not ViaKind.WRAPPER or not uses or info is self.func \
                or any(a.star for a in node.args) or any(tracing.has_unresolved_static(u) for u in uses):
            return
        kept = tracing.passed_through(uses, info, offset) | ctx.static
        # A keyword argument is mapped by vmap whatever `in_axes` says; grad never differentiates one.
        maps = any(u.transform.untraced_none_option for u in uses)
        params = info.positional[offset:]
        given: dict[str, Value] = {}
        i = 0
        for arg, v in zip(node.args, args):
            if arg.keyword is not None:
                name = arg.keyword.value
                if maps:
                    continue
            elif i < len(params):
                name = params[i]
                i += 1
            else:
                return
            if name in kept and name not in bound:
                given[name] = v
        values = tuple(sorted(given.items()))
        if values and ctx.arg_values != values:
            info.contexts[node.func] = dataclasses.replace(ctx, arg_values=values)
            info.callers.add(self.func)
            self.mark_dirty(info)

    def init_fields(self, klass, node: cst.Call, args: list[Value], depth: int = 0) -> Optional[tuple]:
        """The attributes `Cls(...)` sets from its arguments: each `self.name = param` at the
        top of `__init__`, where nothing else in the class (or outside it) sets `name`; and
        each `self.name = Part(param, ...)`, an object of a class of this file built from
        those arguments, with the fields its own `__init__` sets from them (a block holding
        a dropout layer made from the block's rate)."""
        init = klass.methods.get("__init__")
        if init is None or not isinstance(init.node, cst.FunctionDef) or not init.positional or depth > 4:
            return None
        bound = _bind_arguments(init, node, args, 1)
        if not bound:
            return None

        def param(expr: cst.BaseExpression) -> Optional[Value]:
            if isinstance(expr, cst.Name) and expr.value in bound \
                    and len(init.scope.bindings.get(expr.value, ())) == 1:
                return bound[expr.value]
            return None

        fields = []
        for stmt in init.node.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                    continue
                for target, value in _paired(small.targets[0].target, small.value):
                    if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                            and target.value.value == init.positional[0]):
                        continue
                    held = param(value)
                    if held is None and isinstance(value, cst.Call):
                        held = self.part_object(value, param, depth)
                    if held is not None and self.model._class_attribute_targets(klass, target.attr.value) == [target]:
                        fields.append((target.attr.value, held))
        return tuple(fields) or None

    def part_object(self, call: cst.Call, param, depth: int) -> Optional[Value]:
        """`Part(rate)` in an `__init__`, every argument a parameter of that `__init__`:
        the object, with the fields its constructor sets from them."""
        part = self.model.resolve_class(call.func)
        if part is None or part.pytree or part.box or any(a.star for a in call.args):
            return None
        values = [param(a.value) for a in call.args]
        if any(v is None for v in values):
            return None
        entries = self.init_fields(part, call, values, depth + 1)
        return make(Kind.UNKNOWN, Shape.OBJECT, cls=part, entries=entries) if entries else None

    def returns_a_value(self, info: FunctionInfo) -> bool:
        """Whether the function has a `return x` (without one it gives None)."""
        found = self.returning.get(info)
        if found is None:
            from jaxlint.engine.model import walk

            found = self.returning[info] = info.is_lambda or any(
                isinstance(n, cst.Return) and n.value is not None
                for n in walk(info.node.body, prune=(cst.FunctionDef, cst.Lambda, cst.ClassDef)))
        return found

    def compiled_callee(self, func: cst.BaseExpression) -> Optional[FunctionInfo]:
        """The function of this file that calling `func` runs through an abstract transform:
        a decorated `f`, `step` bound once to `jax.jit(f)`, or `self.step` set to
        `jax.jit(self._step)` by every assignment of the class."""
        from jaxlint.engine import tracing

        model = self.model
        info = model.resolve_function(func) or model.method_of_self(func)
        if info is not None:
            return info if any(c.via is ViaKind.DECORATOR and c.abstract
                               for c in info.contexts.values()) else None
        if isinstance(func, cst.Name):
            values = model.assigned_values(func)
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            values = model.attribute_assignments(func)
        else:
            return None
        found = None
        for value in values or ():
            if not isinstance(value, cst.Call):
                return None
            use = tracing.wrapper_use(model, value)
            target = tracing.wrapped_target(value) if use is not None else None
            resolved = tracing.resolve_callable(model, target, [use]) if target is not None else None
            if resolved is None or not use.transform.abstract or (found is not None and resolved[0] is not found):
                return None
            found = resolved[0]
        return found


    def builtin_call(self, node: cst.Call, name: str, args: list[Value]) -> Value:
        if name in jax_api.STATIC_BUILTINS:
            return SCALAR
        if name in _CONVERTING_BUILTINS:
            if name in ("min", "max"):
                if any(v.maybe_tracer for v in args):
                    return TRACED_ARRAY
                return STATIC if all(v.static for v in args) else UNKNOWN
            if name == "range":
                return STATIC_CONTAINER if all(v.static for v in args) else UNKNOWN
            return SCALAR  # int(x): a Python value, or the error JAX2xx reports
        if name in jax_api.TRACED_BUILTINS:
            if any(v.traced for v in args):
                return TRACED_ARRAY
            return STATIC if all(v.static for v in args) else UNKNOWN
        if name in ("list", "tuple", "sorted", "reversed", "zip", "enumerate", "dict", "set"):
            return container(args)
        if name == "getattr" and len(node.args) >= 2 and isinstance(node.args[1].value, cst.SimpleString):
            attr = node.args[1].value.evaluated_value
            if attr in jax_api.STATIC_ATTRIBUTES:
                return STATIC
        return UNKNOWN

    def tree_callback(self, node: cst.Call, q: str) -> None:
        """`jax.tree.map(f, tree)` in a trace calls `f` on the tree's leaves: tracers."""
        if q not in _TREE_MAPS or self.func is None or not self.func.traced:
            return
        pos = [a.value for a in node.args if a.keyword is None and not a.star]
        if len(pos) < 2 or not any(self.values.get(t, UNKNOWN).traced for t in pos[1:2]):
            return
        callee = self.model.resolve_function(pos[0])
        if callee is None or callee is self.func:
            return
        n = len(pos) - 1
        values = tuple((p, TRACED_ARRAY if self.values.get(pos[1], UNKNOWN).traced else UNKNOWN)
                       for p in callee.positional[:1])
        values += tuple((p, TRACED_ARRAY if self.values.get(t, UNKNOWN).traced else UNKNOWN)
                        for p, t in zip(callee.positional[1:n], pos[2:]))
        self.add_context(callee, node, values)

    def body_structures(self, node: cst.Call, q: str, args: list[Value]) -> None:
        """`lax.scan(body, init, (labels, preds))`: the body's parameters are pytrees of the
        structure of the arguments they come from (BODY_PARAMETER_SOURCES), so a tuple there
        is a tuple of tracers in the body. Only a known container is handed on; the other
        parameters stay what the trace makes them."""
        from jaxlint.engine.tracing import resolve_callable

        sources = jax_api.BODY_PARAMETER_SOURCES.get(q)
        body = jax_api.BODY_CALLS.get(q)
        if sources is None or body is None or any(a.star for a in node.args):
            return
        given = {}
        position = 0
        for arg, v in zip(node.args, args):
            if arg.keyword is None:
                given[position] = v
                position += 1
            else:
                given[arg.keyword.value] = v
        values = []
        for i, source in enumerate(sources):
            if source is None:
                continue
            v = given.get(source[0], given.get(source[1]))
            if v is not None and v.shape is Shape.CONTAINER:
                values.append((i, _traced_structure(v)))
        if not values:
            return
        targets = [node.args[i].value for i in body.fn_positions if i < len(node.args)
                   and node.args[i].keyword is None]
        targets += [a.value for a in node.args if a.keyword is not None and a.keyword.value in body.fn_keywords]
        for target in targets:
            found = resolve_callable(self.model, target, [], factory=True)
            ctx = found[0].contexts.get((node, target)) if found is not None else None
            if ctx is None or ctx.via is not ViaKind.BODY:
                continue
            info, uses, offset, bound = found
            if uses or offset or bound or len(info.positional) < len(sources):
                continue  # a rewrapped or partially applied body: its parameters shift
            named = tuple(sorted((info.positional[i], v) for i, v in values))
            if ctx.arg_values != named:
                info.contexts[(node, target)] = dataclasses.replace(ctx, arg_values=named)
                self.mark_dirty(info)

    def add_context(self, callee: FunctionInfo, node: cst.CSTNode, values: tuple) -> bool:
        caller = self.func
        ctx = TraceContext(
            transforms=caller.contexts_transforms(),
            abstract=caller.abstract, cached=caller.cached, via=ViaKind.HELPER,
            static=frozenset(p for p, v in values if v.static),
            traced_params=frozenset(p for p, v in values if v.traced), origin=node,
            arg_values=values, differentiates=caller.differentiates)
        callee.callers.add(caller)
        if callee.contexts.get(node) != ctx:
            callee.contexts[node] = ctx
            self.mark_dirty(callee)
            return True
        return False

    def helper_call(self, node: cst.Call, arg_values: list[Value]) -> Value:
        """A call from a traced function to a function of this file makes it a helper.

        Returns what the callee returns, as far as its last analysis knows.
        """
        caller = self.func
        if caller is None or not caller.traced:
            return self.eager_result(node)
        model = self.model
        callee = model.resolve_function(node.func)
        shift = 0
        args = list(zip(node.args, arg_values))
        if callee is None and isinstance(node.func, cst.Name):
            # `lr_fn = make_schedule(...)` at module level: the factory's nested def runs.
            from jaxlint.engine.callees import returned_function

            callee = returned_function(model, node.func)
        if callee is None:
            klass = model.resolve_class(node.func)
            if klass is not None:
                callee = klass.methods.get("__init__")
                shift = 1
            else:
                callee = model.method_of_self(node.func)
                shift = 1
        if callee is None and isinstance(node.func, cst.Attribute):
            # `Quaternion.from_axis_angle(v)`: a method looked up on a class of this file;
            # a classmethod gets the class, a staticmethod or plain function nothing.
            owner = model.resolve_class(node.func.value)
            method = owner.methods.get(node.func.attr.value) if owner is not None else None
            if method is not None:
                callee, shift = method, (1 if _is_classmethod(method) else 0)
        bound: dict[str, Value] = {}
        through_instance = False
        if callee is None and isinstance(node.func, cst.Attribute):
            # `self.learning_rate(step)`: a function of this file the object keeps in a field.
            from jaxlint.engine.callees import stored_function

            callee, shift = stored_function(model, node.func), 0
        if callee is None:
            callee, args = self.instance_call(node, args)
            shift = 1
            through_instance = callee is not None
            called = self.values.get(node.func)
            # `self.layer(x)` runs `type(self.layer).__call__` on `self.layer`; `obj.run(x)`
            # runs a method on `obj`.
            owner = called if called is not None and called.cls is not None \
                and callee is called.cls.methods.get("__call__") \
                else self.values.get(node.func.value if isinstance(node.func, cst.Attribute) else node.func)
            if callee is not None and callee.positional and owner is not None \
                    and (owner.traced or owner.shape is Shape.OBJECT and owner.entries):
                # `self` is the object, with the fields it holds; a traced pytree is the
                # trace's own copy of it.
                bound[callee.positional[0]] = owner
        if callee is None or callee is caller:
            return UNKNOWN
        positional = callee.positional[shift:]
        i = 0
        for arg, v in args:
            if arg.star == "*":
                # f(*args): the rest of the positional parameters get its elements.
                for name in positional[i:]:
                    bound.setdefault(name, _element(v, unpacking=True))
                i = len(positional)
                continue
            if arg.star == "**":
                for name in callee.all_params[shift:]:
                    if name not in bound and name not in callee.defaults and name != callee.vararg:
                        bound[name] = _leaf(v) if v.traced else UNKNOWN
                continue
            if arg.keyword is not None:
                name = arg.keyword.value
            elif i < len(positional):
                name = positional[i]
                i += 1
            elif callee.vararg:
                name = callee.vararg
                v = make(v.kind, Shape.CONTAINER)
            else:
                continue
            bound[name] = v
        self.add_context(callee, node, tuple(sorted(bound.items())))
        if through_instance and callee.returns is not None and callee.returns.traced:
            return callee.returns  # `model.apply(params, x)`: what the method returns
        if shift or callee.returns is None:
            return UNKNOWN  # a constructor returns an object
        return callee.returns


    def eager_result(self, node: cst.Call) -> Value:
        """Outside a trace, a function of this file that returns a JAX (or NumPy) array
        gives a concrete one, whatever its own analysis under a transform found."""
        callee = self.model.resolve_function(node.func)
        if callee is None:
            return UNKNOWN
        if self.func is not None:
            callee.callers.add(self.func)  # run again when what it returns is known
        returns = callee.returns
        if returns is None:
            return UNKNOWN
        if returns.shape is Shape.ARRAY:
            return CONCRETE_ARRAY
        if returns.shape is Shape.NUMPY:
            return NUMPY_ARRAY
        return UNKNOWN

    def instance_call(self, node: cst.Call, args: list) -> tuple[Optional[FunctionInfo], list]:
        """`model(x)` on an object of a class of this file runs `Model.__call__`; a flax
        linen `model.apply(variables, x, method=...)` runs `__call__` (or the method) on
        the arguments after the variables."""
        klass = self.values.get(node.func, UNKNOWN).cls
        if klass is not None:
            return klass.methods.get("__call__"), args
        if not isinstance(node.func, cst.Attribute):
            return None, args
        owner = self.values.get(node.func.value, UNKNOWN)
        # An object of a registered pytree class is a container; its methods run all the same
        # (`SO3.exp(x).log()`): jit rebuilds a traced one as its class, methods and all.
        if owner.shape in (Shape.OBJECT, Shape.CONTAINER) and owner.cls is not None \
                and node.func.attr.value in owner.cls.methods \
                and (node.func.attr.value != "apply" or not _linen_module(self.model, owner.cls)):
            # `sampler.draw(x)` on an object made from a class of this file.
            method = owner.cls.methods[node.func.attr.value]
            return (None if _is_classmethod(method) or _is_staticmethod(method) else method), args
        if owner.cls is None and isinstance(node.func.value, cst.Name):
            # A parameter every call site hands an object of a class of this file, also
            # through `jax.grad(f)(x, obj)`, which passes an argument it does not
            # differentiate as it is.
            from jaxlint.engine.callees import instance_class

            klass = instance_class(self.model, node.func.value)
            method = klass.methods.get(node.func.attr.value) if klass is not None else None
            if method is not None and not (_is_classmethod(method) or _is_staticmethod(method)):
                return method, args
        if node.func.attr.value != "apply":
            return None, args
        klass = self.values.get(node.func.value, UNKNOWN).cls
        if klass is None or "apply" in klass.methods or not _linen_module(self.model, klass):
            return None, args
        method = "__call__"
        rest = []
        for i, (arg, v) in enumerate(args):
            if arg.keyword is None and not arg.star and i == 0:
                continue  # the variables
            if arg.keyword is not None and arg.keyword.value in jax_api.LINEN_APPLY_OPTIONS:
                if arg.keyword.value == "method" and isinstance(arg.value, cst.SimpleString):
                    method = arg.value.evaluated_value
                elif arg.keyword.value == "method":
                    return None, args
                continue
            rest.append((arg, v))
        return klass.methods.get(method), rest


def _objects(v: Value) -> bool:
    """A list of objects of one class of this file: `[Member(...) for i in range(5)]`."""
    if v.shape is not Shape.CONTAINER or v.cls is not None or not v.entries or len(v.entries) != 1 \
            or v.entries[0][0] is not EVERY_ITEM:
        return False
    item = v.entries[0][1]
    return item.shape in (Shape.OBJECT, Shape.CONTAINER) and item.cls is not None


def _host_data(v: Value) -> bool:
    """A NumPy array, or a Python list / tuple whose positions are known: data a call
    hands over as it is, which a trace sees as a sequence (or a host array)."""
    if v.shape is Shape.NUMPY:
        return True
    return v.shape is Shape.CONTAINER and v.cls is None and bool(v.entries) \
        and all(isinstance(k, int) and not isinstance(k, bool) or k is EVERY_ITEM for k, _ in v.entries)


def _boolean_construction(model, node: cst.Call) -> bool:
    """`np.ones(n, dtype=bool)`, `np.array([True, False])`: a NumPy boolean array."""
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            return model.qualname(arg.value) in jax_api.BOOLEAN_DTYPES
    first = node.args[0].value if node.args and node.args[0].keyword is None else None
    return model.qualname(node.func) in ("numpy.array", "numpy.asarray") \
        and isinstance(first, (cst.List, cst.Tuple)) and bool(first.elements) \
        and all(isinstance(e.value, cst.Name) and e.value.value in ("True", "False")
                for e in first.elements)


def _linen_module(model, klass, depth: int = 0) -> bool:
    """A subclass of `flax.linen.Module`, directly or through classes of this file."""
    for base in klass.node.bases:
        if model.qualname(base.value) in jax_api.LINEN_MODULE_CLASSES:
            return True
        local = model.resolve_class(base.value)
        if local is not None and local is not klass and depth < 8 and _linen_module(model, local, depth + 1):
            return True
    return False


def _paired(target: cst.BaseExpression, value: cst.BaseExpression):
    """(target, value) pairs of an assignment: `self.a, self.b = a, b` gives two."""
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)) \
            and len(target.elements) == len(value.elements) \
            and not any(isinstance(el, cst.StarredElement) for el in (*target.elements, *value.elements)):
        return [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
    return [(target, value)]


def _bind_arguments(callee: FunctionInfo, node: cst.Call, arg_values: list[Value],
                    shift: int) -> Optional[dict]:
    """Parameter name -> argument value at a call; None when `*args` make it unclear."""
    bound: dict[str, Value] = {}
    positional = callee.positional[shift:]
    i = 0
    for arg, v in zip(node.args, arg_values):
        if arg.star:
            return None
        if arg.keyword is not None:
            bound[arg.keyword.value] = v
        elif i < len(positional):
            bound[positional[i]] = v
            i += 1
    return bound


def annotation_value(model, ann: cst.BaseExpression, traced: bool) -> Value:
    """What a traced parameter (or pytree field) annotated `ann` holds."""
    kind = Kind.TRACED if traced else Kind.UNKNOWN
    if is_array_annotation(model, ann):
        return make(kind, Shape.ARRAY)
    q = model.qualname(ann)
    if q in jax_api.SCALAR_ANNOTATIONS:
        # Not static: under jit a Python int argument becomes a 0-d traced array.
        return make(kind, Shape.ARRAY)
    base_q = model.qualname(ann.value) if isinstance(ann, cst.Subscript) else q
    if q in jax_api.BOX_CLASSES or base_q in jax_api.BOX_CLASSES:
        return make(kind, Shape.BOX)
    if q in jax_api.LIBRARY_PYTREE_CLASSES:
        return make(kind, Shape.CONTAINER, cls=library_class(model, q))
    klass = model.resolve_class(ann)
    if klass is not None:
        if klass.static:
            return make(Kind.STATIC, Shape.CONTAINER, cls=klass)  # no leaves: never traced
        if klass.box:
            return make(kind, Shape.BOX)
        if klass.pytree:
            return make(kind, Shape.CONTAINER, cls=klass)
        return make(kind)
    inner = _optional_of(model, ann)
    if inner is not None:
        v = annotation_value(model, inner, traced)
        # Optional: it may be None. An Optional pytree class keeps its fields; an
        # Optional array is not known to be a tracer (`if mask:` may test for None).
        if v.cls is not None:
            return make(v.kind, Shape.UNKNOWN, cls=v.cls)
        return UNKNOWN
    base = ann.value if isinstance(ann, cst.Subscript) else ann
    bq = model.qualname(base)
    if bq in _CONTAINER_ANNOTATIONS:
        return make(kind, Shape.CONTAINER)
    return make(kind)


def library_class(model, qualname: str):
    from jaxlint.engine.functions import ClassInfo, FieldInfo

    cache = model.library_classes
    found = cache.get(qualname)
    if found is None:
        found = ClassInfo(qualname.rsplit(".", 1)[-1], None)
        found.pytree = True
        found.library = True
        found.fields = {n: FieldInfo(n, True) for n in jax_api.LIBRARY_PYTREE_CLASSES[qualname]}
        cache[qualname] = found
    return found


def _optional_of(model, ann: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """X for `Optional[X]` and `X | None`."""
    if isinstance(ann, cst.Subscript) and model.qualname(ann.value) in ("typing.Optional",) \
            and len(ann.slice) == 1 and isinstance(ann.slice[0].slice, cst.Index):
        return ann.slice[0].slice.value
    if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.BitOr):
        for a, b in ((ann.left, ann.right), (ann.right, ann.left)):
            if isinstance(b, cst.Name) and b.value == "None":
                return a
    return None


def _join_traces(a: Value, b: Value) -> Value:
    """A parameter's value over two ways of tracing the function.

    Each is a real trace of its own: traced in one of them is traced (the other
    trace does not make the first one's error go away).
    """
    if a.traced and not b.traced:
        return a
    if b.traced and not a.traced:
        return b
    if {a.shape, b.shape} == {Shape.ARRAY, Shape.NUMPY}:
        # A JAX array in one trace, a NumPy array in the other: the first trace stages
        # what it computes from its array (`float(ub[i])` fails there), whatever the other does.
        return a if a.shape is Shape.ARRAY else b
    joined = a.join(b)
    if a.shape is Shape.OBJECT and a.cls is not None and a.cls is b.cls and a.entries and b.entries \
            and [k for k, _ in a.entries] == [k for k, _ in b.entries]:
        # Two objects of one class (`jax.jit(layer_np)`, `jax.jit(layer_jnp)`): field by field.
        return make(joined.kind, joined.shape, cls=a.cls,
                    entries=tuple((k, _join_traces(v, b.entry(k))) for k, v in a.entries))
    return joined


def _element(v: Value, unpacking: bool = False) -> Value:
    """One element of `v` when iterated (or, with `unpacking`, unpacked)."""
    if v.entries is not None and v.entries:
        return join_all(e for _, e in v.entries)
    if v.shape is Shape.ARRAY:
        return TRACED_ARRAY if v.traced else CONCRETE_ARRAY
    if v.traced:
        # Unpacking gives rows of an array or children of a tuple: traced. Iterating
        # a pytree may give a dict's keys, which are static strings.
        return TRACED if unpacking else UNKNOWN
    if v.static:
        return STATIC
    return UNKNOWN


def _leaf(v: Value) -> Value:
    """An entry of a container (`d[k]`, `d.values()`): traced if the container is."""
    if v.entries is not None and v.entries:
        return join_all(e for _, e in v.entries)
    if v.traced:
        return TRACED
    if v.static:
        return STATIC
    return UNKNOWN


def _mirror(v: Value, in_abstract: bool) -> Value:
    """The result of a function that returns its argument's pytree, leaf by leaf."""
    if not in_abstract and not v.traced:
        return make(Kind.UNKNOWN, v.shape if v.shape is not Shape.SCALAR else Shape.ARRAY)
    if v.shape is Shape.ARRAY or v.shape is Shape.SCALAR:
        return TRACED_ARRAY
    return make(Kind.TRACED, v.shape, cls=v.cls, entries=v.entries)


def _concrete_like(v: Value) -> Value:
    """`v`'s pytree, outside any abstract trace, with no JVP tracer left: concrete arrays."""
    return make(Kind.UNKNOWN, v.shape if v.shape is not Shape.SCALAR else Shape.ARRAY, cls=v.cls)


def _transformed_output(returns: Optional[Value]) -> Value:
    """What a jitted (or vmapped) function gives back inside another trace: it binds a
    primitive there, so its outputs are tracers even when its own arguments are static."""
    if returns is None:
        return UNKNOWN
    if returns.shape in (Shape.ARRAY, Shape.SCALAR):
        return TRACED_ARRAY
    if returns.shape is Shape.CONTAINER:
        return make(Kind.TRACED, Shape.CONTAINER, cls=returns.cls)
    if returns.shape is Shape.UNKNOWN and returns.kind is not Kind.UNKNOWN:
        return TRACED  # a value the function computes: an array, or a pytree of them
    return UNKNOWN


def _python_container(v: Value) -> bool:
    """A container whose `==` is Python's own (no `__eq__` of a class of this file)."""
    return v.shape is Shape.CONTAINER and "__eq__" not in getattr(v.cls, "methods", {})


def _python_scalar(v: Value) -> bool:
    return v.shape is Shape.SCALAR and v.static


def _traced_structure(v: Value) -> Value:
    """What a lax loop hands its body for the pytree `v` (a carry, a slice of `xs`): the
    same containers, with tracers for leaves (an array leaf a traced array)."""
    if v.shape is Shape.ARRAY or v.shape is Shape.NUMPY:
        return TRACED_ARRAY
    if v.shape is not Shape.CONTAINER:
        return TRACED
    entries = None
    if v.entries is not None:
        entries = tuple((k, _traced_structure(e)) for k, e in v.entries)
    return make(Kind.TRACED, Shape.CONTAINER, cls=v.cls, entries=entries)


def _traced_like(v: Value) -> Value:
    """A pytree of `v`'s structure whose leaves are tracers (a gradient with respect to `v`)."""
    if v.entries:
        return make(Kind.TRACED, v.shape, cls=v.cls,
                    entries=tuple((k, _traced_like(e)) for k, e in v.entries))
    if v.shape in (Shape.ARRAY, Shape.SCALAR):
        return TRACED_ARRAY
    if v.shape is Shape.CONTAINER:
        return make(Kind.TRACED, Shape.CONTAINER, cls=v.cls)
    return TRACED


def _constant_key(expr: cst.BaseExpression):
    if isinstance(expr, cst.SimpleString):
        return expr.evaluated_value
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    return None


def _is_classmethod(info: FunctionInfo) -> bool:
    node = info.node
    return isinstance(node, cst.FunctionDef) and any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "classmethod" for d in node.decorators)


def _is_staticmethod(info: FunctionInfo) -> bool:
    node = info.node
    return isinstance(node, cst.FunctionDef) and any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in node.decorators)


def _arith(a: Value, b: Value) -> Value:
    if a.maybe_tracer or b.maybe_tracer or (a.traced and a.shape is Shape.BOX) \
            or (b.traced and b.shape is Shape.BOX):
        # Arithmetic succeeded, so the traced operand is an array, not a pytree.
        return TRACED_ARRAY
    if a.traced or b.traced:
        if a.shape is Shape.CONTAINER and b.shape is Shape.CONTAINER:
            return make(Kind.TRACED, Shape.CONTAINER)  # list / tuple concatenation
        return UNKNOWN
    if a.static and b.static:
        if a.shape is b.shape and a.shape in (Shape.SCALAR, Shape.CONTAINER):
            return make(Kind.STATIC, a.shape)
        if Shape.NUMPY in (a.shape, b.shape) and {a.shape, b.shape} <= {Shape.NUMPY, Shape.SCALAR}:
            return NUMPY_ARRAY  # NumPy arithmetic with a Python number stays in NumPy
        return STATIC
    if a.array or b.array:
        return CONCRETE_ARRAY
    return UNKNOWN
