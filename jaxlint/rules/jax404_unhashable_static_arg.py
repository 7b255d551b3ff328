"""JAX404: an unhashable value (list, dict, set, array) passed to a static parameter."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.callees import every_passed
from jaxlint.engine import tracing
from jaxlint.engine.tracing import resolve_callable
from jaxlint.engine.values import Shape
from jaxlint.rules import _recompile as rc
from jaxlint.rules.base import Rule

_LITERALS = {cst.List: "a list", cst.Dict: "a dict", cst.Set: "a set", cst.ListComp: "a list",
             cst.DictComp: "a dict", cst.SetComp: "a set"}
_BUILTINS = {"builtins.list": "a list", "builtins.dict": "a dict", "builtins.set": "a set",
             "builtins.bytearray": "a bytearray"}


class UnhashableStaticArg(Rule):
    code = "JAX404"
    name = "unhashable-static-arg"
    summary = "an unhashable value (list, dict, set, array) passed to a static argument"
    confirm_kind = "trace-error"
    raises = "ValueError"

    def fix(self, report):
        from jaxlint.fixes.recompile import tuple_fix

        return tuple_fix(self.model, report.node)

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            callee = rc.jitted_callee(model, call)
            if callee is None or not callee.static:
                continue
            for param, arg in callee.bind(call, model):
                if param not in callee.static:
                    continue
                kind = self._unhashable(arg)
                if kind is None:
                    continue
                fix = ("pass a tuple instead" if kind in ("a list", "a set") else
                       "give it hashable fields (tuples, not lists or dicts)" if kind.startswith("a frozen") else
                       "declare the class @dataclass(frozen=True)" if kind.endswith("that is not frozen)") else
                       "define __hash__ too" if kind.endswith("without __hash__)") else
                       "pass a hashable value (a tuple, a frozen dataclass)" if kind == "a dict" else
                       "pass it as a traced (non-static) argument, or as a tuple")
                msg = (f"static argument `{param}` of `{callee.label}` gets {kind}, which is "
                       f"unhashable: the call raises ValueError: Non-hashable static arguments "
                       f"are not supported; {fix}")
                yield self.report(arg, msg, model.function_of(call), static_arg=param)
        yield from self._static_self()
        yield from self._transformed_jitted()
        yield from self._array_metadata()

    def _array_metadata(self):
        """A pytree whose metadata field (`meta_fields`, `pytree_node=False`) holds an array,
        passed to a jitted function: jit looks its cache up by comparing the metadata of
        the call with that of the traced call, with `==` unless it is the same object.
        Two instances made with their own arrays make that comparison raise ValueError
        (jax 0.10.2: "Exception raised while checking equality of metadata fields")."""
        model = self.model
        by_callee: dict = {}
        for call in model.nodes(cst.Call):
            callee = rc.jitted_callee(model, call)
            if callee is None:
                continue
            for param, arg in callee.bind(call):
                if param in callee.static:
                    continue
                made = self._instance_with_array_metadata(arg)
                if made is not None:
                    by_callee.setdefault(callee.function, []).append((call, arg, made))
        for callee, uses in by_callee.items():
            uses.sort(key=lambda u: model.order[u[0]])
            for i, (call, arg, (construction, klass, field)) in enumerate(uses):
                earlier = {u[2][0] for u in uses[:i]} - {construction}
                looped = rc.repeating_loop(model, construction) is not None \
                    and rc.repeating_loop(model, call) is rc.repeating_loop(model, construction)
                if not earlier and not looped:
                    continue  # the first instance traces; only a second one compares
                yield self.report(arg, (
                    f"`{self.source(arg)}` carries an array in `{klass.name}`'s metadata field "
                    f"`{field}`: jit compares the metadata of each call with the traced one's by "
                    f"`==`, and for another instance's array that raises ValueError (arrays cannot "
                    f"be metadata fields); make `{field}` a data field, or hold a tuple or a "
                    f"hashable value there"), model.function_of(call), static_arg=field)

    def _instance_with_array_metadata(self, expr, depth: int = 0):
        """(constructor call, class, field) where `expr` is `Cls(...)` of a pytree class of
        this file (or a name bound once to one) given a freshly made array for a static field."""
        model = self.model
        if isinstance(expr, cst.Name) and depth == 0:
            values = model.assigned_values(expr)
            if values is None or len(values) != 1:
                return None
            return self._instance_with_array_metadata(values[0], 1)
        if not isinstance(expr, cst.Call):
            return None
        klass = model.resolve_class(expr.func)
        if klass is None or not klass.pytree or not klass.fields:
            return None
        names = list(klass.fields)
        for i, arg in enumerate(expr.args):
            if arg.star:
                return None
            name = arg.keyword.value if arg.keyword is not None else (names[i] if i < len(names) else None)
            field = klass.fields.get(name) if name is not None else None
            if field is None or not field.static or not isinstance(arg.value, cst.Call):
                continue
            q = model.qualname(arg.value.func)
            if q in jax_api.NUMPY_ARRAY_CONSTRUCTORS or (
                    q is not None and q.startswith(jax_api.UNHASHABLE_RESULT_MODULES)
                    and q not in jax_api.HASHABLE_RESULT_FUNCTIONS and q not in jax_api.STATIC_ARRAY_FUNCTIONS):
                return expr, klass, name
        return None

    def _transformed_jitted(self):
        """`jax.vmap(partial(f, a, b))(xs)`, `jax.grad(f, argnums=1)(x, n)` of a function
        jitted with static arguments: where the outer transform traces a static parameter,
        the jit gets a tracer, which never hashes; where it does not, the jit gets the
        caller's own value, which must hash."""
        model = self.model
        for info in model.functions:
            jit_ctx = rc._decorator_context(info)
            if jit_ctx is None or not jit_ctx.static:
                continue
            for origin, ctx in list(info.contexts.items()):
                if ctx is jit_ctx or ctx.via != "wrapper" or not isinstance(origin, cst.Call) \
                        or not (ctx.abstract or ctx.differentiates):
                    continue
                found = resolve_callable(model, origin, [])
                if found is None or found[0] is not info:
                    continue
                if _argnums_given(model, origin):
                    continue  # JAX803 names the argnums that reach the static argument
                offset = found[2]
                traced = ctx.traced_params if ctx.traced_params is not None else frozenset(
                    p for p in info.all_params if p not in ctx.static)
                hit = [p for p in info.positional[offset:] if p in jit_ctx.static and p in traced]
                if hit:
                    yield self.report(origin, (
                        f"`{self.source(origin)}` hands `{info.name}` a tracer for `{hit[0]}`, which "
                        f"its jit marks static: a tracer is unhashable, so the call raises ValueError: "
                        f"Non-hashable static arguments are not supported; keep `{hit[0]}` out of the "
                        f"transform (in_axes=None, argnums, or a closure) or do not mark it static"),
                        model.function_of(origin), static_arg=hit[0])
                    continue
                call = model.parent(origin)
                if not isinstance(call, cst.Call) or call.func is not origin:
                    continue
                callee = rc.JittedCallee(info, jit_ctx, offset, self.source(origin))
                for param, arg in callee.bind(call):
                    if param not in jit_ctx.static:
                        continue
                    kind = self._unhashable(arg)
                    if kind is not None:
                        yield self.report(arg, (
                            f"`{self.source(origin)}` passes `{self.source(arg)}` on to `{info.name}`'s "
                            f"static argument `{param}`, and it gets {kind}, which is unhashable: the call "
                            f"raises ValueError: Non-hashable static arguments are not supported; pass it "
                            f"as a traced (non-static) argument, or as a hashable value"),
                            model.function_of(call), static_arg=param)

    def _static_self(self):
        """`@partial(jax.jit, static_argnums=0)` on a method of a class whose instances do
        not hash: every call hashes `self`, and raises."""
        for info in self.model.functions:
            klass = info.klass
            if not info.is_method or klass is None or not klass.unhashable or not info.positional:
                continue
            for ctx in info.contexts.values():
                if ctx.via == "decorator" and info.positional[0] in ctx.static:
                    yield self.report(ctx.origin, (
                        f"`{info.name}` marks `{info.positional[0]}` static, but instances of "
                        f"`{klass.name}` ({klass.unhashable}) are unhashable: every call raises "
                        f"ValueError: Non-hashable static arguments are not supported; "
                        f"{'define __hash__ too' if '__eq__' in klass.unhashable else 'declare the class @dataclass(frozen=True)'}"),
                        info, static_arg=info.positional[0])
                    break

    def _unhashable_default(self, call: cst.Call, klass) -> Optional[str]:
        """What an unhashable default gives a field the constructor call leaves out:
        `field(default_factory=dict)` or `default_factory=lambda: {...}` (a dataclass
        refuses a list, dict or set as a plain default). A field declared
        `hash=False` / `compare=False` is left out of the hash."""
        if any(a.star for a in call.args):
            return None
        names = list(klass.fields) if klass.fields else _annotated_fields(klass.node)
        passed = {a.keyword.value for a in call.args if a.keyword is not None}
        passed |= set(names[:sum(1 for a in call.args if a.keyword is None)])
        for stmt in klass.node.body.body:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name) \
                        or small.target.value in passed or not isinstance(small.value, cst.Call) \
                        or self.model.qualname(small.value.func) != "dataclasses.field":
                    continue
                options = {a.keyword.value: a.value for a in small.value.args if a.keyword is not None}
                if any(isinstance(options.get(k), cst.Name) and options[k].value == "False"
                       for k in ("hash", "compare")):
                    continue
                factory = options.get("default_factory")
                made = factory.body if isinstance(factory, cst.Lambda) else factory
                held = next((kind for t, kind in _LITERALS.items() if isinstance(made, t)), None)
                if held is None and made is not None:
                    held = _BUILTINS.get(self.model.qualname(made))
                if held is not None:
                    return f"{held} by default in `{small.target.value}`"
        return None

    def _unhashable(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[str]:
        model = self.model
        for t, kind in _LITERALS.items():
            if isinstance(expr, t):
                return kind
        klass = model.value(expr).cls
        if klass is None and isinstance(expr, cst.Call):
            klass = model.resolve_class(expr.func)
        if klass is not None and getattr(klass, "unhashable", False):
            return f"an instance of `{klass.name}` ({klass.unhashable})"
        if isinstance(expr, (cst.Call, cst.Name, cst.Attribute)) and klass is None:
            # What a helper of this file returns, or what `self.mask` holds.
            shape = model.value(expr).shape
            if shape is Shape.NUMPY:
                return "a NumPy array"
            if shape is Shape.ARRAY and not model.value(expr).traced:
                return "a JAX array"
        if isinstance(expr, cst.Call) and klass is not None and klass.frozen_dataclass:
            # A frozen dataclass hashes the tuple of its fields: one field that does not
            # hash (an array, a dict, a list) makes the instance unhashable.
            for a in expr.args:
                if model.value(a.value).array or model.value(a.value).shape is Shape.NUMPY:
                    return f"a frozen `{klass.name}` holding an array"
                held = next((kind for t, kind in _LITERALS.items() if isinstance(a.value, t)), None)
                if held is not None:
                    return f"a frozen `{klass.name}` holding {held}"
            held = self._unhashable_default(expr, klass)
            if held is not None:
                return f"a frozen `{klass.name}` holding {held}"
        if isinstance(expr, cst.Call):
            q = model.qualname(expr.func)
            if q in _BUILTINS:
                return _BUILTINS[q]
            if q in jax_api.NUMPY_ARRAY_CONSTRUCTORS:
                return "a NumPy array"
            if q is not None and q.startswith(jax_api.UNHASHABLE_RESULT_MODULES) \
                    and q not in jax_api.HASHABLE_RESULT_FUNCTIONS and q not in jax_api.STATIC_ARRAY_FUNCTIONS \
                    and not q.rsplit(".", 1)[1][:1].isupper():
                return "a JAX array"  # jnp.array(...), jnp.sum(...), jax.random.key(0): unhashable
            if q is None and isinstance(expr.func, cst.Attribute) \
                    and expr.func.attr.value in jax_api.ARRAY_METHODS and expr.func.attr.value != "item" \
                    and model.value(expr.func.value).array:
                return "a JAX array"  # `x.sum()` of a known array
            return None
        if isinstance(expr, cst.Name) and depth < 2:
            # `sizes = [1, 2]` ... `f(x, sizes)`: every binding makes the same unhashable kind
            # (through one more name: `static = model`).
            values = model.assigned_values(expr)
            if values is None:
                values = every_passed(model, expr)  # a parameter: what every call passes
            kinds = {self._unhashable(v, depth + 1) for v in values or ()}
            if len(kinds) == 1:
                return kinds.pop()
        return None


def _argnums_given(model, origin: cst.Call) -> bool:
    """`jax.grad(f, argnums=(1, 2))`: literal argnums of a differentiating transform, which
    JAX803 checks against the static parameters; one problem gets one finding."""
    q = model.qualname(origin.func)
    diff = jax_api.DIFFERENTIATING.get(q)
    if diff is None or not diff.has_argnums:
        return False
    node = tracing._kwargs(origin, tracing.transform_for(model, q)).get("argnums")
    return node is not None and tracing._literal_ints(node) is not None


def _annotated_fields(node: cst.ClassDef) -> list[str]:
    """A dataclass's fields in order: the names its body annotates."""
    return [small.target.value for stmt in node.body.body
            for small in (stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ())
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)]
