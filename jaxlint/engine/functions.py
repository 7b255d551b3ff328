"""Functions, classes, and the trace contexts that say how a function is traced."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional, Union

import libcst as cst

from jaxlint.engine.scopes import Scope
from jaxlint.engine.values import Value

FunctionNode = Union[cst.FunctionDef, cst.Lambda]


class ViaKind(str, enum.Enum):
    """How a function came to be traced."""

    DECORATOR = "decorator"  # @jax.jit
    WRAPPER = "wrapper"      # jax.jit(f)
    BODY = "body"            # lax.scan(f, ...), pallas_call(kernel, ...)
    HELPER = "helper"        # called from traced code

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class TraceContext:
    """One way a function gets traced: `@jax.jit`, `lax.scan(body, ...)`, a helper call."""

    # Transform names from the outside in, e.g. ("jit", "grad").
    transforms: tuple[str, ...]
    abstract: bool
    cached: bool
    via: ViaKind
    # Parameters that are static (static_argnums / static_argnames).
    static: frozenset[str] = frozenset()
    # For helpers: the parameters that receive traced arguments. None: every
    # parameter that is not static.
    traced_params: Optional[frozenset[str]] = None
    # The node that made it traced (decorator, wrapping call, call site).
    origin: Optional[cst.CSTNode] = None
    # For "wrapper" and "body": the function whose body holds the wrapping call.
    # Its own tracing makes this context abstract too (jax.grad(f) inside a jit).
    within: Optional["FunctionInfo"] = None
    # For helpers: the value of each argument at the call site, as ((name, Value), ...).
    arg_values: Optional[tuple] = None
    # JVP tracers (grad, jvp, vjp): `if x > 0` works, float(x) does not.
    differentiates: bool = False
    # A Pallas kernel: its arguments are Refs.
    refs: bool = False
    # equinox's filter_jit: only array arguments are traced.
    arrays_only: bool = False

    def describe(self) -> str:
        return "(".join(self.transforms) + ")" * (len(self.transforms) - 1) if self.transforms else self.via


@dataclass(frozen=True)
class FieldInfo:
    """A field of a pytree class: static fields are metadata, the rest are children."""

    name: str
    static: bool
    annotation: Optional[cst.BaseExpression] = None


@dataclass(eq=False)
class ClassInfo:
    name: str
    node: cst.ClassDef
    methods: dict[str, "FunctionInfo"] = field(default_factory=dict)
    # Filled by `jaxlint.engine.classes`: whether instances are pytrees (flax
    # struct, equinox Module, NamedTuple, registered dataclass), their fields,
    # and whether instances are mutable boxes (nnx.Variable subclasses).
    pytree: bool = False
    box: bool = False
    # Registered with no leaves (`register_static`): instances are static inside jit.
    static: bool = False
    # A library's class (flax's TrainState): fields not listed static are children.
    library: bool = False
    fields: dict[str, FieldInfo] = field(default_factory=dict)
    # Filled by `jaxlint.engine.classes.read_attributes`: the targets of the plain
    # `self.name = value` statements in its methods, by attribute name, and the names
    # also written in ways the model does not follow (`self.n += 1`, tuple targets).
    attribute_sites: dict[str, list] = field(default_factory=dict)
    attributes_unfollowed: set[str] = field(default_factory=set)
    # Why its instances are unhashable, or "" when they hash: a plain `@dataclass` (eq
    # without frozen sets __hash__ to None), or a class defining __eq__ without __hash__.
    unhashable: str = ""
    # A `@dataclass(frozen=True)`: hashable only when its fields are.
    frozen_dataclass: bool = False
    # Local base classes and subclasses: an attribute is read through any of them.
    relatives: list["ClassInfo"] = field(default_factory=list)


@dataclass(eq=False)
class FunctionInfo:
    node: FunctionNode
    name: str
    qualname: str
    scope: Scope  # the function's own scope
    enclosing: Optional["FunctionInfo"]
    klass: Optional[ClassInfo]
    # Positional parameters in order (positional-only first), then keyword-only.
    positional: list[str]
    kwonly: list[str]
    vararg: Optional[str]
    kwarg: Optional[str]
    defaults: dict[str, cst.BaseExpression]
    annotations: dict[str, cst.BaseExpression]
    order: int
    contexts: dict[object, TraceContext] = field(default_factory=dict)
    # Filled by the value analysis.
    param_values: dict[str, Value] = field(default_factory=dict)
    env: dict[str, Value] = field(default_factory=dict)
    children: list["FunctionInfo"] = field(default_factory=list)
    # The join of the values it returns (None until analysed), and who calls it.
    returns: Optional[Value] = None
    callers: set = field(default_factory=set)
    # Argument values at the calls this file makes to it: {call node: ((name, Value), ...)}.
    sites: dict = field(default_factory=dict)

    @property
    def is_lambda(self) -> bool:
        return isinstance(self.node, cst.Lambda)

    @property
    def is_method(self) -> bool:
        return self.klass is not None and not self.is_lambda

    @property
    def traced(self) -> bool:
        return bool(self.contexts)

    @property
    def abstract(self) -> bool:
        """Values are abstract: Python control flow on them fails."""
        return any(c.abstract for c in self.contexts.values())

    @property
    def differentiates(self) -> bool:
        """Values are JVP tracers of grad / jvp / vjp (and not abstract)."""
        return any(c.differentiates for c in self.contexts.values())

    def contexts_transforms(self) -> tuple[str, ...]:
        """The outermost transform of how this function is traced, for a helper's context."""
        desc = self.transform_description()
        return tuple(c for c in desc.split("(")[:1] if c)

    @property
    def cached(self) -> bool:
        """Traced once and cached: side effects and global reads happen once."""
        return any(c.cached for c in self.contexts.values())

    @property
    def static_params(self) -> frozenset[str]:
        """Parameters static in every abstract context."""
        sets = [c.static for c in self.contexts.values() if c.abstract]
        if not sets:
            return frozenset()
        out = sets[0]
        for s in sets[1:]:
            out = out & s
        return out

    @property
    def all_params(self) -> list[str]:
        out = list(self.positional) + list(self.kwonly)
        if self.vararg:
            out.append(self.vararg)
        if self.kwarg:
            out.append(self.kwarg)
        return out

    def transform_description(self) -> str:
        """e.g. "jit", "vmap", "lax.scan body", for messages."""
        for c in self.contexts.values():
            if c.abstract:
                return c.describe()
        for c in self.contexts.values():
            return c.describe()
        return ""

    @property
    def line_node(self) -> cst.CSTNode:
        return self.node


def build_function_info(node: FunctionNode, name: str, qualname: str, scope: Scope,
                        enclosing: Optional[FunctionInfo], klass: Optional[ClassInfo],
                        order: int) -> FunctionInfo:
    params = node.params
    positional = [p.name.value for p in list(params.posonly_params) + list(params.params)]
    kwonly = [p.name.value for p in params.kwonly_params]
    vararg = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
    kwarg = params.star_kwarg.name.value if params.star_kwarg is not None else None
    defaults, annotations = {}, {}
    all_params = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for p in all_params:
        if p.default is not None:
            defaults[p.name.value] = p.default
        if p.annotation is not None:
            annotations[p.name.value] = p.annotation.annotation
    return FunctionInfo(node=node, name=name, qualname=qualname, scope=scope, enclosing=enclosing,
                        klass=klass, positional=positional, kwonly=kwonly, vararg=vararg,
                        kwarg=kwarg, defaults=defaults, annotations=annotations, order=order)
