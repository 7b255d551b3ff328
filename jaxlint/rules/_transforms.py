"""What the transform-usage rules (JAX8xx) share: a transform applied to a function
of this file, its options, and what the function returns.

`jax.grad(f, argnums=1)`, `@partial(jax.value_and_grad, has_aux=True)`, and
`jax.vmap(f, in_axes=(0, None))` all apply a transform directly to a function
(through `partial` and bound methods). The rules compare the transform's
options with the function's signature and its `return` statements, and only
when both are known: a function with other decorators, `*args`, or options
that are not literals is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine import callees, tracing
from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.model import children
from jaxlint.rules import _recompile as rc

_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


@dataclass
class Applied:
    """One transform applied directly to a function of this file."""

    qualname: str
    # The decorator expression or the wrapping call: findings are reported here.
    node: cst.CSTNode
    # Options by name (keywords, and those given by position after the function).
    options: dict[str, cst.BaseExpression]
    # Some options could not be read (`**kwargs`, more positional options than known).
    unreadable: bool
    info: FunctionInfo
    # Positional parameters bound before the transform sees them (`partial(f, a)`, `self`).
    offset: int
    bound: frozenset[str]
    via_partial: bool
    decorator: bool

    @property
    def label(self) -> str:
        return "the lambda" if self.info.is_lambda else f"`{self.info.name}`"

    @property
    def positional(self) -> list[str]:
        """The positional parameters the transformed function still takes."""
        return self.info.positional[self.offset:]


def applications(model, qualnames, positions: dict[str, tuple[Optional[int], ...]],
                 names: tuple[str, ...]) -> Iterator[Applied]:
    """Each application of a transform in `qualnames` to a function of this file.

    `positions[q]` gives, for each option in `names`, its position after the
    function when passed by position (None: keyword-only). The function must have
    no decorator between it and the transform: a decorator may change what it
    returns or which arguments it takes.
    """
    for info in model.functions:
        if info.is_lambda or not info.node.decorators:
            continue
        dec = info.node.decorators[-1].decorator  # the innermost sees the function itself
        q, options, unreadable = _decorator(model, dec, qualnames, positions, names)
        if q is not None:
            yield Applied(q, dec, options, unreadable, info, 0, frozenset(), False, True)
    for call in model.nodes(cst.Call):
        q = model.qualname(call.func)
        if q not in qualnames:
            continue
        target = tracing.wrapped_target(call)
        if target is None:
            continue
        use = tracing.wrapper_use(model, call)
        found = tracing.resolve_callable(model, target, [use] if use is not None else [])
        if found is None:
            continue
        info, uses, offset, bound = found
        if len(uses) > 1 or (not info.is_lambda and info.node.decorators):
            continue
        options, unreadable = _options(call, positions[q], names, skip=1)
        yield Applied(q, call, options, unreadable, info, offset, bound,
                      isinstance(target, cst.Call), False)


def applications_at_call_sites(model, qualnames, positions: dict[str, tuple[Optional[int], ...]],
                               names: tuple[str, ...]) -> Iterator[tuple[Applied, cst.Call]]:
    """A transform applied to a parameter of a wrapper (`def grad(fun, has_aux=False):
    jax.value_and_grad(fun, has_aux=has_aux)`), once per call of the wrapper in this file
    that passes a function of the file: that function, with the options the call passes
    or the wrapper's defaults give (an option naming another parameter reads it there)."""
    for call in model.nodes(cst.Call):
        q = model.qualname(call.func)
        if q not in qualnames:
            continue
        target = tracing.wrapped_target(call)
        if not isinstance(target, cst.Name):
            continue
        wrapper = model.function_of(call)
        if wrapper is None or wrapper.is_lambda or target.value not in wrapper.positional \
                or target.value in wrapper.scope.bindings and any(
                    b.kind != "param" for b in wrapper.scope.bindings[target.value]):
            continue
        options, unreadable = _options(call, positions[q], names, skip=1)
        for site, shift in callees.call_sites(model, wrapper):
            passed = callees.argument_for(site, wrapper, target.value, shift)
            info = callees.function_of_callable(model, passed) if passed is not None else None
            if info is None or info.is_lambda or info.node.decorators or info.is_method:
                continue
            given, unknown = {}, unreadable or any(a.star for a in site.args)
            for option, expr in options.items():
                if isinstance(expr, cst.Name) and expr.value in wrapper.all_params:
                    expr = callees.argument_for(site, wrapper, expr.value, shift) \
                        or wrapper.defaults.get(expr.value)
                    unknown = unknown or expr is None
                if expr is not None:
                    given[option] = expr
            yield Applied(q, call, given, unknown, info, 0, frozenset(), False, False), site


def applied_calls(model, app: Applied) -> list[cst.Call]:
    """The calls of the transformed function: `jax.vmap(f, ...)(x)`, `vf(x)` with
    `vf = jax.vmap(f, ...)`, or a decorated `f(x)`."""
    if app.decorator:
        if app.info.is_method:
            return []
        return [c for c in model.calls_named(app.info.name) if model.resolve_function(c.func) is app.info]
    parent = model.parent(app.node)
    if isinstance(parent, cst.Call) and parent.func is app.node:
        return [parent]  # jax.vmap(f, ...)(x)
    name = rc.bound_name(model, app.node)
    if name is None:
        return []
    # `vf(x)`, here or in a function, reaches this transform only when every binding
    # `vf` can see is this one (`vf = scaler.value_and_grad(...)` on another path is
    # another function).
    return [c for c in model.calls_named(name.value)
            if (values := model.assigned_values(c.func)) is not None
            and len(values) == 1 and values[0] is app.node]


@dataclass(frozen=True)
class PartialCall:
    """A call of `partial(vf, *bound, **kw)`, where `vf` is the transformed function:
    the transform sees the partial's bound arguments first, then the call's."""

    partial: cst.Call
    call: cst.Call

    @property
    def starred(self) -> bool:
        return any(a.star for a in self.partial.args[1:]) or any(a.star for a in self.call.args)

    @property
    def positional(self) -> list[cst.BaseExpression]:
        return [a.value for a in (*self.partial.args[1:], *self.call.args) if a.keyword is None]

    @property
    def keywords(self) -> list[str]:
        return [a.keyword.value for a in (*self.partial.args[1:], *self.call.args) if a.keyword is not None]


def partial_calls(model, app: Applied) -> list[PartialCall]:
    """The calls of `partial(vf, ...)` for the transformed function `vf` (written in
    place, or a name bound to it), through the name or the `self.<attr>` the partial is
    bound to, where that binding is the only one the call can see."""
    partials = []
    for ref in _references(model, app):
        partial = _partial_of(model, ref)
        if partial is not None:
            partials.append(partial)
    return _partial_uses(model, partials)


def _references(model, app: Applied) -> list[cst.CSTNode]:
    """Where the transformed function is referred to: the transform call written in place
    and the reads of the name bound to it (the only binding they can see), or, for
    `@partial(vmap, in_axes=...)` on a def, the reads of the def's name."""
    if app.decorator:
        func = app.info.node
        if not isinstance(func, cst.FunctionDef) or app.info.is_method:
            return []
        return [ref for ref in model.names_spelled(func.name.value)
                if ref is not func.name and model.resolve_function(ref) is app.info]
    refs = [app.node]
    name = rc.bound_name(model, app.node)
    if name is not None:
        refs += [ref for ref in model.names_spelled(name.value) if ref is not name
                 and (values := model.assigned_values(ref)) is not None and values == [app.node]]
    return refs


def _partial_of(model, ref: cst.CSTNode) -> Optional[cst.Call]:
    """`partial(ref, ...)`: the partial call whose function `ref` is, or None."""
    arg = model.parent(ref)
    call = model.parent(arg) if isinstance(arg, cst.Arg) else None
    if isinstance(call, cst.Call) and call.args and call.args[0] is arg and arg.keyword is None \
            and not arg.star and model.qualname(call.func) in tracing.PARTIAL:
        return call
    return None


def _partial_uses(model, partials: list[cst.Call]) -> list[PartialCall]:
    """The calls of each partial: in place, or through the name or `self.<attr>` it is
    bound to where that binding is the only one the call can see."""
    out = []
    for p in partials:
        assign = model.parent(p)
        if isinstance(assign, cst.Call) and assign.func is p:
            out.append(PartialCall(p, assign))  # `partial(vf, x=data)(theta)`
            continue
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            continue
        target = assign.targets[0].target
        if isinstance(target, cst.Name):
            calls = [c for c in model.calls_named(target.value)
                     if (values := model.assigned_values(c.func)) is not None and values == [p]]
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                and (klass := model.class_of_self(target.value)) is not None:
            calls = [c for c in callees.attribute_calls(model, klass, target.attr.value)
                     if (values := model.attribute_assignments(c.func)) is not None and values == [p]]
        else:
            continue
        out.extend(PartialCall(p, c) for c in calls)
    return out


@dataclass(frozen=True)
class ParameterCall:
    """A call of the transformed function made through a parameter it is passed to:
    `s.compiled(df)` with `def compiled(self, fn)` calling `fn(y=y)`, or
    `partial(fn, x=x0)(y=y)` (then `partial` is set). The transform sees the partial's
    bound arguments first, then the call's."""

    site: cst.Call  # the call that passes the transformed function
    param: str
    call: cst.Call
    partial: Optional[cst.Call] = None

    @property
    def arguments(self) -> list[cst.Arg]:
        return [*(self.partial.args[1:] if self.partial is not None else ()), *self.call.args]


def parameter_calls(model, app: Applied) -> list[ParameterCall]:
    """The calls of the transformed function that a function of this file makes through
    the parameter a call hands it to (`s.compiled(df)` with `df = jax.grad(f, ...)`, or
    `run(jax.grad(f))`): the parameter's own reads in that function and the functions
    nested in it, where every binding they see is the parameter."""
    out = []
    for ref in _references(model, app):
        arg = model.parent(ref)
        site = model.parent(arg) if isinstance(arg, cst.Arg) and not arg.star else None
        if not isinstance(site, cst.Call) or site.func is ref or model.qualname(site.func) in tracing.PARTIAL \
                or tracing.transform_for(model, model.qualname(site.func)) is not None:
            continue
        callee = callees.function_of_callable(model, site.func)
        if callee is None or callee.is_lambda:
            continue
        shift = next((sh for c, sh in callees.call_sites(model, callee) if c is site), None)
        if shift is None:
            continue
        param = next((p for p in callee.all_params
                      if callees.argument_for(site, callee, p, shift) is ref), None)
        if param is None or param in (callee.vararg, callee.kwarg):
            continue
        own = callee.scope.bindings.get(param)
        if not own or any(b.kind != "param" for b in own):
            continue  # rebound in the function: its reads may see something else
        for read in model.names_spelled(param):
            if model.scope_of(read).lookup(param) is not own \
                    or not any(anc is callee.node for anc in model.ancestors(read)):
                continue
            parent = model.parent(read)
            if isinstance(parent, cst.Call) and parent.func is read:
                out.append(ParameterCall(site, param, parent))
                continue
            partial = _partial_of(model, read)
            if partial is not None:
                out.extend(ParameterCall(site, param, pc.call, pc.partial)
                           for pc in _partial_uses(model, [partial]))
    return out


def _decorator(model, expr, qualnames, positions, names):
    q = model.qualname(expr)
    if q in qualnames:
        return q, {}, False
    if not isinstance(expr, cst.Call):
        return None, {}, False
    fq = model.qualname(expr.func)
    if fq in qualnames:
        # `@nnx.grad(has_aux=True)`: options only, the function comes next.
        if any(a.keyword is None for a in expr.args):
            return None, {}, False
        options, unreadable = _options(expr, positions[fq], names, skip=0)
        return fq, options, unreadable
    if fq in tracing.PARTIAL:
        pos = tracing._positional(expr)
        if not pos:
            return None, {}, False
        inner = model.qualname(pos[0])
        if inner not in qualnames:
            return None, {}, False
        # `partial(jax.grad, ...)`: positional options would come before the function.
        options, unreadable = _options(expr, (), names, skip=1)
        return inner, options, unreadable
    return None, {}, False


def _options(call: cst.Call, positions, names, skip: int):
    options: dict[str, cst.BaseExpression] = {}
    unreadable = False
    index = 0
    for arg in call.args:
        if arg.star:
            unreadable = True
        elif arg.keyword is not None:
            options[arg.keyword.value] = arg.value
        else:
            if index >= skip:
                at = index - skip
                name = next((n for n, p in zip(names, positions) if p is not None and p - 1 == at),
                            None)
                if name is None:
                    unreadable = True
                else:
                    options[name] = arg.value
            index += 1
    return options, unreadable


def literal_bool(expr: Optional[cst.BaseExpression]) -> Optional[bool]:
    """True / False for the literal names, None for anything else."""
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


# ---------------------------------------------------------------- returns
def return_values(info: FunctionInfo) -> Optional[list[Optional[cst.BaseExpression]]]:
    """The expressions the function returns (None for a bare `return`), or None when
    it yields or has no `return` at all (a stub, or a function that always raises)."""
    if info.is_lambda:
        return [info.node.body]
    out: list[Optional[cst.BaseExpression]] = []
    stack = children(info.node.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, (cst.Yield, cst.Await)):
            return None
        if isinstance(node, cst.Return):
            out.append(node.value)
        stack.extend(children(node))
    return out or None


_CONTAINERS = {cst.Tuple: "a tuple", cst.List: "a list", cst.Dict: "a dict",
               cst.ListComp: "a list", cst.DictComp: "a dict"}


@dataclass(frozen=True)
class Container:
    kind: str  # "a tuple", "a list", "a dict"
    length: Optional[int]  # entries, when the literal says
    node: cst.BaseExpression  # the literal


def container_literal(model, expr: Optional[cst.BaseExpression], info: FunctionInfo,
                      depth: int = 0) -> Optional[Container]:
    """The container literal `expr` is: `(loss, aux)`, `[a, b]`, `{"loss": l}`, or a
    local name that every assignment binds to such a literal of the same kind."""
    if expr is None:
        return None
    kind = _CONTAINERS.get(type(expr))
    if kind is not None:
        length = None
        if isinstance(expr, (cst.Tuple, cst.List)) \
                and not any(isinstance(el, cst.StarredElement) for el in expr.elements):
            length = len(expr.elements)
        return Container(kind, length, expr)
    if isinstance(expr, cst.Name) and depth == 0:
        bindings = info.scope.bindings.get(expr.value)
        if not bindings or expr.value in info.scope.globals or expr.value in info.scope.nonlocals:
            return None
        found = set()
        for b in bindings:
            node = b.node
            if b.kind != "assign" or not isinstance(node, cst.Assign) or len(node.targets) != 1 \
                    or not isinstance(node.targets[0].target, cst.Name):
                return None
            got = container_literal(model, node.value, info, depth + 1)
            if got is None:
                return None
            found.add((got.kind, got.length))
        if len(found) == 1:
            kind, length = found.pop()
            return Container(kind, length, expr)
    return None


_NUMBERS = (cst.Integer, cst.Float)


def single_value(model, expr: cst.BaseExpression) -> bool:
    """One number or one array, never a tuple: a literal, a jnp reduction, `x.mean()`,
    arithmetic on those."""
    if isinstance(expr, _NUMBERS):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return single_value(model, expr.expression)
    if isinstance(expr, cst.Call):
        if model.qualname(expr.func) in jax_api.SINGLE_ARRAY_FUNCTIONS:
            return True
        return isinstance(expr.func, cst.Attribute) \
            and expr.func.attr.value in jax_api.SINGLE_ARRAY_METHODS and model.value(expr).array
    if isinstance(expr, cst.BinaryOperation):
        # `a + b` of two single values; a tuple `+` would need a tuple operand.
        left, right = single_value(model, expr.left), single_value(model, expr.right)
        return (left and right) or (model.value(expr).array and (left or right))
    return False


def known_rank(model, expr: cst.BaseExpression, depth: int = 0) -> Optional[int]:
    """The number of dimensions of `expr` when the code says it: a Python number (0),
    `jnp.ones((4, 3))` (2), `jnp.arange(5)` (1), or a name bound once to one of those."""
    if isinstance(expr, _NUMBERS) or (isinstance(expr, cst.UnaryOperation)
                                      and isinstance(expr.expression, _NUMBERS)):
        return 0
    if isinstance(expr, cst.Call):
        q = model.qualname(expr.func)
        fixed = jax_api.FIXED_RANK_CONSTRUCTORS.get(q)
        if fixed is not None:
            return fixed
        where = jax_api.SHAPED_CONSTRUCTORS.get(q)
        if where is None:
            return None
        position, keyword = where
        shape = next((a.value for a in expr.args if a.keyword and a.keyword.value == keyword), None)
        pos = [a.value for a in expr.args if a.keyword is None and not a.star]
        if shape is None and len(pos) > position:
            shape = pos[position]
        if isinstance(shape, cst.Integer):
            return 1
        if isinstance(shape, (cst.Tuple, cst.List)) \
                and not any(isinstance(el, cst.StarredElement) for el in shape.elements):
            return len(shape.elements)
        return None
    if isinstance(expr, cst.Name) and depth == 0:
        values = model.assigned_values(expr)
        if not values or len(values) != 1:
            return None
        return known_rank(model, values[0], depth + 1)
    return None


def not_a_pair(model, expr: Optional[cst.BaseExpression], info: FunctionInfo) -> Optional[tuple[str, cst.CSTNode]]:
    """What a returned `expr` is when it is definitely not a two-element tuple or list
    (what has_aux=True needs): ("a dict" / "a tuple of 3" / "a single value", node)."""
    if expr is None:
        return None
    found = container_literal(model, expr, info)
    if found is not None:
        if found.kind == "a dict":
            return "a dict", expr
        if found.length is None or found.length == 2:
            return None
        return f"{found.kind} of {found.length}", expr
    if single_value(model, expr):
        return "a single value", expr
    if isinstance(expr, cst.Name):
        bindings = info.scope.bindings.get(expr.value)
        if bindings and all(b.kind == "assign" and isinstance(b.node, cst.Assign)
                            and len(b.node.targets) == 1
                            and isinstance(b.node.targets[0].target, cst.Name)
                            and single_value(model, b.node.value) for b in bindings):
            return "a single value", expr
    return None


def output_fails(model, app: Applied, has_aux: bool) -> bool:
    """Whether calling the transformed function raises because of what `f` returns:
    every return a tuple / list / dict without has_aux (JAX801), or none a pair with
    has_aux=True (JAX802)."""
    returns = return_values(app.info)
    if not returns:
        return False
    if has_aux:
        return all(not_a_pair(model, r, app.info) is not None for r in returns)
    return all(container_literal(model, r, app.info) is not None for r in returns)
