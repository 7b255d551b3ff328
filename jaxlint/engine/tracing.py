"""Which functions are traced, by which transform, and with which static arguments.

Three sources, all resolved through imports:
- decorators: `@jax.jit`, `@jax.jit(static_argnames=...)`, `@partial(jax.jit, ...)`;
- wrapping calls: `jax.jit(f, static_argnums=1)`, `jax.jit(jax.grad(f))`, `jax.vmap(f)`;
- bodies handed to lax control flow: `lax.scan(body, ...)`, `lax.cond(p, t, f, x)`.
Helpers called from traced functions are added later, by the value analysis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from jaxlint.engine.functions import FunctionInfo, TraceContext, ViaKind
from jaxlint.engine.scopes import BindingKind
from jaxlint.jax_api import BODY_CALLS, KERNEL_CALLS, TRANSFORM_KINDS, TRANSFORMS, Transform

PARTIAL = frozenset({"functools.partial"})


@dataclass
class TransformUse:
    """One transform applied to a function, with its options."""

    transform: Transform
    kwargs: dict[str, cst.BaseExpression]
    node: cst.CSTNode


def transform_for(model, qualname: Optional[str]) -> Optional[Transform]:
    if qualname is None:
        return None
    # The user's configuration wins over the built-in table.
    kind = model.extra_transforms.get(qualname)
    if kind is not None:
        return TRANSFORM_KINDS.get(kind, TRANSFORM_KINDS["jit"])
    return TRANSFORMS.get(qualname)


def _kwargs(call: cst.Call, transform: Optional[Transform] = None) -> dict[str, cst.BaseExpression]:
    """Keyword options; with `transform`, also its options given by position after `fun`."""
    out = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if transform is not None and transform.positional_options:
        extra = _positional(call)[1:]
        for name, value in zip(transform.positional_options, extra):
            out.setdefault(name, value)
    return out


def _positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def decorator_transform(model, expr: cst.BaseExpression) -> Optional[TransformUse]:
    """`@jax.jit`, `@jax.jit(static_argnames=...)`, `@partial(jax.jit, ...)`."""
    t = transform_for(model, model.qualname(expr))
    if t is not None:
        return TransformUse(t, {}, expr)
    if isinstance(expr, cst.Call):
        fq = model.qualname(expr.func)
        t = transform_for(model, fq)
        if t is not None and not _positional(expr):
            return TransformUse(t, _kwargs(expr), expr)
        if fq in PARTIAL:
            pos = _positional(expr)
            if pos:
                t = transform_for(model, model.qualname(pos[0]))
                if t is not None:
                    return TransformUse(t, _kwargs(expr), expr)
    return None


def _literal_ints(expr: cst.BaseExpression) -> Optional[list[int]]:
    if isinstance(expr, cst.Integer):
        return [int(expr.value, 0)]
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) \
            and isinstance(expr.expression, cst.Integer):
        return [-int(expr.expression.value, 0)]
    if isinstance(expr, (cst.Tuple, cst.List)):
        out = []
        for el in expr.elements:
            got = _literal_ints(el.value)
            if got is None:
                return None
            out.extend(got)
        return out
    return None


def _literal_strs(expr: cst.BaseExpression) -> Optional[list[str]]:
    if isinstance(expr, cst.SimpleString):
        return [expr.evaluated_value]
    if isinstance(expr, (cst.Tuple, cst.List)):
        out = []
        for el in expr.elements:
            got = _literal_strs(el.value)
            if got is None:
                return None
            out.extend(got)
        return out
    return None


def has_unresolved_static(use: TransformUse) -> bool:
    """static_argnums given as a variable: we cannot tell which parameters are static."""
    for kw in use.transform.static_argnums_kw:
        if kw in use.kwargs and _literal_ints(use.kwargs[kw]) is None:
            return True
    for kw in use.transform.static_argnames_kw:
        if kw in use.kwargs and _literal_strs(use.kwargs[kw]) is None:
            return True
    return False


def static_options(use: TransformUse):
    """The static options of `use` given as literals: (keyword, values, by_name).

    `static_argnums=(0, 2)` gives ("static_argnums", [0, 2], False); `static_argnames="n"`
    gives ("static_argnames", ["n"], True). Options that are not literals are left out.
    """
    for kw in use.transform.static_argnums_kw:
        if kw in use.kwargs:
            got = _literal_ints(use.kwargs[kw])
            if got is not None:
                yield kw, got, False
    for kw in use.transform.static_argnames_kw:
        if kw in use.kwargs:
            got = _literal_strs(use.kwargs[kw])
            if got is not None:
                yield kw, got, True


def static_params(use: TransformUse, info: FunctionInfo, offset: int = 0) -> frozenset[str]:
    """Parameter names made static by `static_argnums` / `static_argnames` options.

    `offset` skips parameters already bound (by `partial(f, a)`).
    """
    names: set[str] = set()
    positional = info.positional[offset:]
    for _, values, by_name in static_options(use):
        if by_name:
            names.update(values)
            continue
        for i in values:
            if -len(positional) <= i < len(positional):
                names.add(positional[i])
    return frozenset(names)


def _unbatched_params(use: TransformUse, info: FunctionInfo, offset: int) -> frozenset[str]:
    """vmap's `in_axes=(0, None)`, shard_map's `in_specs=(P("x"), None)`: the None
    positions are passed through untraced. An entry that is a pytree of axes with a None
    leaf (`in_axes=(0, {"k": None, "m": 0})`) passes those leaves through: the argument
    is not traced as a whole. An argument passed by keyword is always mapped, but a tuple
    of axes must match the positional arguments one for one (checked, jax 0.10.2), so a
    None position is never filled by keyword."""
    option = use.transform.untraced_none_option
    if not option or option not in use.kwargs:
        return frozenset()
    axes = use.kwargs[option]
    if not isinstance(axes, (cst.Tuple, cst.List)):
        return frozenset()
    positional = info.positional[offset:]
    return frozenset(positional[i] for i, el in enumerate(axes.elements)
                     if i < len(positional) and _has_none_leaf(el.value))


def _has_none_leaf(axes: cst.BaseExpression) -> bool:
    if isinstance(axes, cst.Name):
        return axes.value == "None"
    if isinstance(axes, (cst.Tuple, cst.List)):
        return any(_has_none_leaf(el.value) for el in axes.elements)
    if isinstance(axes, cst.Dict):
        return any(isinstance(el, cst.DictElement) and _has_none_leaf(el.value) for el in axes.elements)
    return False


def _undifferentiated_params(use: TransformUse, info: FunctionInfo, offset: int) -> frozenset[str]:
    """`jax.grad(f)(x, n)`: only the `argnums` arguments become JVP tracers; the others
    reach `f` as they were passed (a Python int stays one)."""
    if "argnums" not in use.transform.positional_options:
        return frozenset()
    argnums = use.kwargs.get("argnums")
    if argnums is None:
        nums = [0]
    else:
        values = [el.value for el in argnums.elements] if isinstance(argnums, (cst.Tuple, cst.List)) \
            else [argnums]
        if not all(isinstance(v, cst.Integer) for v in values):
            return frozenset()
        nums = [int(v.value) for v in values]
    positional = info.positional[offset:]
    if info.vararg or any(n < 0 or n >= len(positional) for n in nums):
        return frozenset()
    return frozenset(p for i, p in enumerate(positional) if i not in nums)


def passed_through(uses: list[TransformUse], info: FunctionInfo, offset: int = 0) -> frozenset[str]:
    """The parameters every transform in `uses` hands to `f` as the caller passed them.

    An argument reaches `f` concrete only if every transform on the way passes it
    through: `jax.jit(jax.vmap(f, in_axes=(0, None)))` and `jax.vmap(jax.jit(f), ...)`
    trace it in the jit, `vmap(vmap(f, in_axes=(0, None)))` maps it in the outer vmap,
    and `vmap(grad(f), in_axes=(0, None))` keeps it concrete (checked, jax 0.10.2).
    """
    kept = []
    for use in uses:
        t = use.transform
        if t.untraced_none_option:
            kept.append(_unbatched_params(use, info, offset) | static_params(use, info, offset))
        elif t.differentiates:
            kept.append(_undifferentiated_params(use, info, offset))
        elif t.abstract:
            kept.append(static_params(use, info, offset))
    return frozenset.intersection(*kept) if kept else frozenset()


def _context(uses: list[TransformUse], info: FunctionInfo, via: ViaKind, origin,
             within: Optional[FunctionInfo] = None, offset: int = 0,
             bound: frozenset[str] = frozenset(), refs: bool = False) -> TraceContext:
    static = set(bound)
    for use in uses:
        static |= static_params(use, info, offset)
    unbatched = set(passed_through(uses, info, offset))
    traced = None
    if any(has_unresolved_static(u) for u in uses):
        traced = frozenset()  # unknown static set: claim nothing is traced
    elif unbatched or info.defaults:
        # A parameter with a default may never be passed: then it is a Python value.
        traced = frozenset(p for p in info.all_params
                           if p not in static and p not in unbatched and p not in info.defaults)
    return TraceContext(
        transforms=tuple(u.transform.name for u in uses),
        abstract=any(u.transform.abstract for u in uses),
        cached=any(u.transform.cached for u in uses),
        via=via, static=frozenset(static), traced_params=traced, origin=origin, within=within,
        differentiates=any(u.transform.differentiates for u in uses), refs=refs,
        arrays_only=any(u.transform.arrays_only for u in uses))


def resolve_callable(model, expr: cst.BaseExpression, uses: list[TransformUse], factory: bool = False):
    """Follow `jax.jit(jax.grad(f))` and `partial(f, a)` down to a function in this file,
    and under a transform (or with `factory`, for a lax body) `make_step(cfg)` down to the
    nested def that factory returns.

    Returns (function, transform uses from the outside in, number of bound positional
    arguments, names bound by keyword) or None.
    """
    offset = 0
    bound: set[str] = set()
    for _ in range(8):
        if isinstance(expr, cst.Call):
            fq = model.qualname(expr.func)
            t = transform_for(model, fq)
            pos = _positional(expr)
            if t is not None and pos:
                uses = uses + [TransformUse(t, _kwargs(expr, t), expr)]
                expr = pos[0]
                continue
            if fq in PARTIAL and pos:
                offset += len(pos) - 1
                bound |= set(_kwargs(expr))
                if any(a.star for a in expr.args):
                    bound.add("*")  # `partial(f, **kwargs)`: which parameters are bound is unknown
                expr = pos[0]
                continue
            from jaxlint.engine.callees import factory_result

            # `jax.jit(make_step(0.1))`: the nested def the factory returns.
            info = factory_result(model, expr) if uses or factory else None
            if info is None:
                return None
            bound_names = set(info.positional[:offset]) | bound
            return info, uses, offset, frozenset(set(info.all_params) if "*" in bound else bound_names)
        info = model.resolve_function(expr)
        if info is None and isinstance(expr, cst.Name):
            info = _def_under_rewraps(model, expr)
        if info is None and isinstance(expr, cst.Name):
            from jaxlint.engine.callees import returned_function

            info = returned_function(model, expr)  # `f = make_f(...)`: the factory's nested def
        if info is None:
            info = model.method_of_self(expr) or model.method_of_instance(expr)
            # Only under a transform applied to it (a lax body's carry is a tuple of pytrees
            # that the value analysis cannot shape, and its asserts on them would be reported).
            if info is None and uses and isinstance(expr, cst.Name) and model.resolve_class(expr) is None:
                from jaxlint.engine.callees import instance_class

                klass = instance_class(model, expr)  # `jax.eval_shape(block, ...)`: its __call__
                info = klass.methods.get("__call__") if klass is not None else None
            elif info is None and uses and isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
                from jaxlint.engine.callees import instance_class

                # `jax.grad(potential.energy)` with `potential` a parameter that every call
                # passes an instance of one class of this file: that class's method.
                klass = instance_class(model, expr.value)
                info = model.class_method(klass, expr.attr.value) if klass is not None else None
            if info is not None:
                # A bound method: `self` is bound, and static_argnums count from
                # the first argument after it.
                offset += 1
        if info is None:
            return None
        bound_names = set(info.positional[:offset]) | bound
        if "*" in bound:
            bound_names = set(info.all_params)
        return info, uses, offset, frozenset(bound_names)
    return None



def _def_under_rewraps(model, name: cst.Name):
    """`def fn(...)` and `if self.remat: fn = jax.checkpoint(fn)`: every binding of
    the name reaching a read is the def or a transform of it, so the function that runs
    (and is traced, by the transform or by whatever the read hands it to) is the def."""
    from jaxlint.engine.scopes import BindingKind

    bindings = model.scope_of(name).lookup(name.value)
    if not bindings:
        return None
    defs = [b for b in bindings if b.kind == BindingKind.DEF]
    if len(defs) != 1 or defs[0].function is None or defs[0].function.is_lambda:
        return None
    for b in bindings:
        if b.kind == BindingKind.DEF:
            continue
        node = b.node
        if b.kind != BindingKind.ASSIGN or not isinstance(node, cst.Assign) \
                or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name) \
                or not isinstance(node.value, cst.Call) \
                or transform_for(model, model.qualname(node.value.func)) is None:
            return None
        target = wrapped_target(node.value)
        if not (isinstance(target, cst.Name) and target.value == name.value):
            return None
    return defs[0].function


def wrapped_target(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The function a wrapping call `jax.jit(f, ...)` / `jax.jit(fun=f)` transforms."""
    pos = _positional(call)
    return pos[0] if pos else next(
        (a.value for a in call.args if a.keyword and a.keyword.value in ("fun", "f")), None)


def wrapper_use(model, call: cst.Call) -> Optional[TransformUse]:
    """The transform a wrapping call applies, with its options (None: not a transform)."""
    t = transform_for(model, model.qualname(call.func))
    return TransformUse(t, _kwargs(call, t), call) if t is not None else None


def library_application(model, call: cst.Call):
    """`jax.jit(jax.ops.segment_sum)(data, ids, 3)`: a library function called through
    abstract transforms, so that its own arguments are traced.

    Returns (the library function's qualname, the argument positions and names made
    static) or None: not such a call, a transform that keeps values concrete, or static
    options that are not literals.
    """
    expr = call.func
    uses: list[TransformUse] = []
    while isinstance(expr, cst.Call):
        use = wrapper_use(model, expr)
        target = wrapped_target(expr) if use is not None else None
        if target is None:
            return None
        uses.append(use)
        expr = target
    q = model.qualname(expr)
    if not uses or q is None or model.resolve_function(expr) is not None \
            or any(has_unresolved_static(u) for u in uses):
        return None
    # jit-like transforms trace every argument not named static; vmap every argument
    # whose in_axes entry is not None; grad keeps the ones it does not differentiate
    # Python values (not followed here).
    positions: set[int] = set()
    names: set[str] = set()
    for use in uses:
        t = use.transform
        if t.abstract and t.static_argnums_kw:
            for _, values, by_name in static_options(use):
                (names if by_name else positions).update(values)
        elif t.abstract and t.untraced_none_option and not t.arrays_only:
            axes = use.kwargs.get(t.untraced_none_option)
            if isinstance(axes, (cst.Tuple, cst.List)):
                positions.update(i for i, el in enumerate(axes.elements)
                                 if isinstance(el.value, cst.Name) and el.value.value == "None")
            elif axes is not None and not isinstance(axes, cst.Integer):
                return None  # `in_axes=None` (nothing mapped) or computed: unknown
        else:
            return None
    return q, frozenset(positions), frozenset(names)


def passed_functions(model, call: cst.Call):
    """`def jax_jit(fn): return jax.jit(fn)` (or a nested def calling `jax.jit(fn)(*args)`):
    a transform applied to a parameter of a function of this file transforms whatever
    function each caller passes there, `jax_jit(step)` or `@jax_jit`.

    Yields (the call or decorator that passes it, what `resolve_callable` gives for it).
    A transform call with `*args` / `**kwargs` is skipped: its options are unknown.
    """
    from jaxlint.engine.callees import argument_for, call_sites

    uses: list[TransformUse] = []
    expr: cst.BaseExpression = call
    while isinstance(expr, cst.Call):
        use = wrapper_use(model, expr)
        target = wrapped_target(expr) if use is not None else None
        if target is None or any(a.star for a in expr.args):
            return
        uses.append(use)
        expr = target
    if not isinstance(expr, cst.Name):
        return
    bindings = model.scope_of(expr).lookup(expr.value)
    if not bindings or len(bindings) != 1 or bindings[0].kind != BindingKind.PARAM:
        return
    owner = model.function_of(expr)
    while owner is not None and expr.value not in owner.scope.bindings:
        owner = owner.enclosing
    if owner is None or owner.is_lambda or expr.value not in owner.all_params:
        return
    for site, shift in call_sites(model, owner):
        arg = argument_for(site, owner, expr.value, shift)
        found = resolve_callable(model, arg, list(uses)) if arg is not None else None
        if found is not None:
            yield site, found
    if owner.positional[:1] != [expr.value]:
        return
    for info in model.functions:
        if info.is_lambda:
            continue
        for dec in info.node.decorators:
            if model.resolve_function(dec.decorator) is owner:
                yield dec, (info, list(uses), 0, frozenset())


def find_traced_functions(model) -> None:
    # Decorators.
    for info in model.functions:
        if info.is_lambda or not info.node.decorators:
            continue
        uses = []
        for dec in info.node.decorators:  # outermost first
            use = decorator_transform(model, dec.decorator)
            if use is not None:
                uses.append(use)
        if uses:
            ctx = _context(uses, info, ViaKind.DECORATOR, uses[0].node)
            info.contexts[uses[0].node] = ctx

    # Wrapping calls and lax bodies.
    for call in model.nodes(cst.Call):
        fq = model.qualname(call.func)
        if fq is None:
            continue
        within = model.function_of(call)
        t = transform_for(model, fq)
        if t is not None:
            target = wrapped_target(call)
            if target is None:
                continue
            parent = model.parent(call)
            # `jax.jit(jax.grad(f))`: only the outermost wrapper starts the walk.
            if isinstance(parent, cst.Arg) and isinstance(model.parent(parent), cst.Call) \
                    and transform_for(model, model.qualname(model.parent(parent).func)):
                continue
            found = resolve_callable(model, target, [TransformUse(t, _kwargs(call, t), call)])
            if found is None:
                for site, found in passed_functions(model, call):
                    info, uses, offset, bound = found
                    info.contexts[(call, site)] = _context(uses, info, ViaKind.WRAPPER, call, within,
                                                           offset, bound)
                continue
            info, uses, offset, bound = found
            info.contexts[call] = _context(uses, info, ViaKind.WRAPPER, call, within, offset, bound)
            continue
        kernel = KERNEL_CALLS.get(fq)
        if kernel is not None:
            pos = _positional(call)
            found = resolve_callable(model, pos[kernel], []) if len(pos) > kernel else None
            if found is not None:
                info, uses, offset, bound = found
                use = TransformUse(Transform("pallas_call", abstract=True, cached=True), {}, call)
                info.contexts[call] = _context([use] + uses, info, ViaKind.BODY, call, within,
                                               offset, bound, refs=True)
            continue
        body = BODY_CALLS.get(fq)
        if body is None:
            continue
        pos = _positional(call)
        kwargs = _kwargs(call)
        targets = [pos[i] for i in body.fn_positions if i < len(pos)]
        targets += [kwargs[k] for k in body.fn_keywords if k in kwargs]
        if body.branch_list_position is not None and len(pos) > body.branch_list_position:
            branches = pos[body.branch_list_position]
            if isinstance(branches, (cst.List, cst.Tuple)):
                targets += [el.value for el in branches.elements]
        name = "lax." + fq.rsplit(".", 1)[-1]
        for target in targets:
            found = resolve_callable(model, target, [], factory=True)
            if found is None:
                continue
            info, uses, offset, bound = found
            lax_use = TransformUse(Transform(name, abstract=body.abstract, cached=True), {}, call)
            info.contexts[(call, target)] = _context(
                [lax_use] + uses, info, ViaKind.BODY, call, within, offset, bound)
