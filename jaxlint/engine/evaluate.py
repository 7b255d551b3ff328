"""The value analysis: which expressions are traced, static, or unknown.

Each function body is interpreted once per round, statement by statement, with
an environment from names to `Value`s. Branches are joined; loop bodies run
twice so that loop-carried values settle. Calls from a traced function to a
function of this file make that function a traced helper, and the analysis
repeats until nothing changes.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.functions import FunctionInfo, TraceContext
from jaxlint.engine.values import (CONCRETE_ARRAY, STATIC, TRACED, TRACED_ARRAY, TRACED_MASK, UNKNOWN,
                                   Kind, Value, join_all, join_envs)

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
    """`jax.grad(f)` inside a jitted function traces `f` abstractly too."""
    for info in model.functions:
        for key, ctx in list(info.contexts.items()):
            if not ctx.abstract and ctx.within is not None and ctx.within.abstract:
                info.contexts[key] = TraceContext(
                    transforms=tuple(ctx.within.transform_description().split("(")[:1]) + ctx.transforms,
                    abstract=True, cached=ctx.cached or ctx.within.cached, via=ctx.via,
                    static=ctx.static, traced_params=ctx.traced_params, origin=ctx.origin,
                    within=ctx.within)
                ev.mark_dirty(info)


def is_array_annotation(model, ann: cst.BaseExpression) -> bool:
    q = model.qualname(ann)
    if q in _ARRAY_ANNOTATIONS:
        return True
    # jaxtyping: Float[Array, "b n"]
    if isinstance(ann, cst.Subscript) and ann.slice:
        first = ann.slice[0].slice
        if isinstance(first, cst.Index):
            return model.qualname(first.value) in _ARRAY_ANNOTATIONS
    return False


class _Evaluator:
    def __init__(self, model):
        self.model = model
        self.values = model.values
        self.dirty: set[FunctionInfo] = set()
        self.func: Optional[FunctionInfo] = None
        self.env: dict[str, Value] = {}
        self.returns: Optional[Value] = None
        self.yields = False

    def mark_dirty(self, info: FunctionInfo) -> None:
        self.dirty.add(info)
        # Nested functions read this one's environment through their closures.
        for child in info.children:
            if child.traced:
                self.dirty.add(child)

    # ------------------------------------------------------------- entry points
    def run_module(self) -> None:
        self.func = None
        self.env = {}
        self.block(self.model.module.body)
        self.model.module_env = self.env

    def run_function(self, info: FunctionInfo) -> None:
        self.func = info
        self.env = self.param_values(info)
        self.returns = None
        info.param_values = dict(self.env)
        node = info.node
        if isinstance(node, cst.Lambda):
            self.returns = self.expr(node.body)
        else:
            self.block(_body(node))
        info.env = self.env
        returns = self.returns if self.returns is not None else STATIC
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
        for p in params:
            env[p] = UNKNOWN
        self_name = info.positional[0] if info.is_method and info.positional else None
        for ctx in info.contexts.values():
            for p in params:
                if p in ctx.static:
                    v = STATIC
                elif p == self_name:
                    continue  # `self` is an object, not an array: its fields are unknown
                elif ctx.traced_params is None or p in ctx.traced_params:
                    if not ctx.abstract:
                        continue
                    v = TRACED
                    ann = info.annotations.get(p)
                    if ann is not None and is_array_annotation(self.model, ann):
                        v = TRACED_ARRAY
                elif ctx.via == "helper" and p in info.defaults:
                    v = STATIC
                else:
                    continue
                env[p] = v if env[p] is UNKNOWN else env[p].join(v)
        if not info.traced:
            for p, ann in info.annotations.items():
                if is_array_annotation(self.model, ann):
                    env[p] = CONCRETE_ARRAY
        return env

    # --------------------------------------------------------------- statements
    def block(self, stmts) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, node: cst.CSTNode) -> None:
        t = type(node)
        if t is cst.SimpleStatementLine or t is cst.SimpleStatementSuite:
            for small in node.body:
                self.small(small)
        elif t is cst.If:
            self.expr(node.test)
            before = dict(self.env)
            self.block(_body(node))
            after_true = self.env
            self.env = before
            if node.orelse is not None:
                if isinstance(node.orelse, cst.If):
                    self.stmt(node.orelse)
                else:
                    self.block(_body(node.orelse))
            self.env = join_envs(after_true, self.env)
        elif t is cst.For:
            it = self.expr(node.iter)
            elem = self.iter_element(node.iter, it)
            before = dict(self.env)
            for _ in range(2):
                self.assign_element(node.target, elem)
                self.block(_body(node))
                self.env = join_envs(before, self.env)
            if node.orelse is not None:
                self.block(_body(node.orelse))
        elif t is cst.While:
            before = dict(self.env)
            for _ in range(2):
                self.expr(node.test)
                self.block(_body(node))
                self.env = join_envs(before, self.env)
            if node.orelse is not None:
                self.block(_body(node.orelse))
        elif t is cst.With:
            for item in node.items:
                v = self.expr(item.item)
                if item.asname is not None:
                    self.assign(item.asname.name, UNKNOWN if not v.static else v, None)
            self.block(_body(node))
        elif t is cst.Try or t is cst.TryStar:
            self.block(_body(node))
            after = self.env
            for handler in node.handlers:
                self.env = dict(after)
                if handler.type is not None:
                    self.expr(handler.type)
                if handler.name is not None:
                    self.assign(handler.name.name, UNKNOWN, None)
                self.block(_body(handler))
                after = join_envs(after, self.env)
            self.env = after
            if node.orelse is not None:
                self.block(_body(node.orelse))
            if node.finalbody is not None:
                self.block(_body(node.finalbody))
        elif t is cst.FunctionDef:
            for dec in node.decorators:
                self.expr(dec.decorator)
            self.params_defaults(node.params)
            self.env[node.name.value] = STATIC
        elif t is cst.ClassDef:
            for dec in node.decorators:
                self.expr(dec.decorator)
            for base in node.bases:
                self.expr(base.value)
            if self.func is None:
                # Class bodies at module level: evaluate statements for the index,
                # in a scratch environment.
                saved = self.env
                self.env = dict(saved)
                self.block(_body(node))
                self.env = saved
            self.env[node.name.value] = STATIC
        elif t is cst.Match:
            self.expr(node.subject)
            before = dict(self.env)
            out = None
            for case in node.cases:
                self.env = dict(before)
                if case.guard is not None:
                    self.expr(case.guard)
                self.block(_body(case))
                out = self.env if out is None else join_envs(out, self.env)
            self.env = out if out is not None else before

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
                    v = Value(v.kind, array=True)
                self.assign(node.target, v, node.value)
        elif t is cst.AugAssign:
            v = self.expr(node.value)
            old = self.expr(node.target)
            if isinstance(node.target, cst.Name):
                self.env[node.target.value] = _arith(old, v)
        elif t is cst.Return:
            v = self.expr(node.value) if node.value is not None else STATIC
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
            if isinstance(value_node, (cst.Tuple, cst.List)) and len(value_node.elements) == len(elements) \
                    and not any(isinstance(e, cst.StarredElement) for e in elements):
                for el, src in zip(elements, value_node.elements):
                    self.assign(el.value, self.values.get(src.value, UNKNOWN), src.value)
                return
            # Unpacking a traced array gives traced rows; a pytree gives traced leaves.
            ev = v if v.kind is not Kind.STATIC else STATIC
            if v.kind is Kind.UNKNOWN:
                ev = Value(Kind.UNKNOWN, v.array)
            for el in elements:
                inner = el.value
                if isinstance(el, cst.StarredElement):
                    self.assign(inner, UNKNOWN if ev.traced else ev, None)
                else:
                    self.assign(inner, ev, None)
            return
        if isinstance(target, cst.StarredElement):
            self.assign(target.value, UNKNOWN, None)
            return
        # Attribute / Subscript targets: record the values of their parts.
        self.expr(target)

    def iter_element(self, iter_node: cst.BaseExpression, it: Value):
        """The value of one element when iterating `iter_node`."""
        if isinstance(iter_node, cst.Call):
            q = self.model.qualname(iter_node.func)
            args = [a.value for a in iter_node.args if a.keyword is None]
            if q == "builtins.range":
                return STATIC if all(self.values.get(a, UNKNOWN).static for a in args) else UNKNOWN
            if q == "builtins.enumerate" and args:
                return ("tuple", [STATIC, self.iter_element(args[0], self.values.get(args[0], UNKNOWN))])
            if q == "builtins.zip":
                return ("tuple", [self.iter_element(a, self.values.get(a, UNKNOWN)) for a in args])
            if q in ("builtins.reversed", "builtins.sorted", "builtins.list", "builtins.tuple") and args:
                return self.iter_element(args[0], self.values.get(args[0], UNKNOWN))
            if isinstance(iter_node.func, cst.Attribute):
                base = self.values.get(iter_node.func.value, UNKNOWN)
                meth = iter_node.func.attr.value
                if meth in jax_api.PYTREE_KEY_METHODS:
                    return STATIC if base.kind is not Kind.UNKNOWN else UNKNOWN
                if meth in jax_api.PYTREE_VALUE_METHODS:
                    return TRACED if base.traced else (STATIC if base.static else UNKNOWN)
                if meth in jax_api.PYTREE_ITEM_METHODS:
                    key = STATIC if base.kind is not Kind.UNKNOWN else UNKNOWN
                    val = TRACED if base.traced else (STATIC if base.static else UNKNOWN)
                    return ("tuple", [key, val])
        if isinstance(iter_node, (cst.Tuple, cst.List)):
            return join_all(self.values.get(e.value, UNKNOWN) for e in iter_node.elements) \
                if iter_node.elements else STATIC
        if it.traced:
            # Iterating an array gives traced rows; iterating a pytree parameter may
            # give dict keys, which are static.
            return TRACED_ARRAY if it.array else UNKNOWN
        if it.static:
            return STATIC
        return UNKNOWN

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
            return STATIC
        if t is cst.Attribute:
            return self.attribute(node)
        if t is cst.Call:
            return self.call(node)
        if t is cst.BinaryOperation:
            left, right = self.expr(node.left), self.expr(node.right)
            v = _arith(left, right)
            if v.traced and isinstance(node.operator, _LOGICAL_OPS) and (left.boolean or right.boolean):
                return TRACED_MASK
            return v
        if t is cst.UnaryOperation:
            v = self.expr(node.expression)
            if isinstance(node.operator, cst.Not):
                return STATIC if v.static else UNKNOWN
            return v
        if t is cst.BooleanOperation:
            return self.expr(node.left).join(self.expr(node.right))
        if t is cst.Comparison:
            return self.comparison(node)
        if t is cst.Subscript:
            return self.subscript(node)
        if t is cst.IfExp:
            self.expr(node.test)
            return self.expr(node.body).join(self.expr(node.orelse))
        if t is cst.Tuple or t is cst.List or t is cst.Set:
            vals = [self.expr(el.value) for el in node.elements]
            return STATIC if all(v.static for v in vals) else UNKNOWN
        if t is cst.Dict:
            vals = []
            for el in node.elements:
                if isinstance(el, cst.DictElement):
                    vals.append(self.expr(el.key))
                vals.append(self.expr(el.value))
            return STATIC if all(v.static for v in vals) else UNKNOWN
        if t is cst.NamedExpr:
            v = self.expr(node.value)
            self.assign(node.target, v, node.value)
            return v
        if t in (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp):
            return self.comprehension(node)
        if t is cst.Lambda:
            self.params_defaults(node.params)
            return STATIC
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
            return STATIC
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
                return v
        bindings = self.model.scope_of(node).lookup(name)
        if bindings is None:
            return STATIC  # a builtin: True, None, len, ...
        if all(b.kind in ("import", "def", "class") for b in bindings):
            return STATIC
        return UNKNOWN

    def attribute(self, node: cst.Attribute) -> Value:
        base = self.expr(node.value)
        attr = node.attr.value
        if attr in jax_api.STATIC_ATTRIBUTES:
            return STATIC if base.kind is not Kind.UNKNOWN or base.array else UNKNOWN
        if base.traced:
            if attr in jax_api.ARRAY_ATTRIBUTES:
                return TRACED_ARRAY
            return TRACED  # a field of a traced pytree
        if base.array and attr in jax_api.ARRAY_ATTRIBUTES:
            return CONCRETE_ARRAY
        if base.static and self.model.qualname(node) is not None:
            return STATIC  # jnp.float32, math.pi, a module attribute
        return UNKNOWN if not base.static else STATIC

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
        if base.traced:
            return TRACED_ARRAY if base.array else TRACED
        if base.array:
            traced_idx = any(v.traced for v in idx)
            return TRACED_ARRAY if traced_idx else CONCRETE_ARRAY
        if base.static and all(v.static for v in idx):
            return STATIC
        return UNKNOWN

    def comparison(self, node: cst.Comparison) -> Value:
        vals = [self.expr(node.left)]
        identity = True
        for comp in node.comparisons:
            vals.append(self.expr(comp.comparator))
            if not isinstance(comp.operator, (cst.Is, cst.IsNot)):
                identity = False
        if identity:
            return STATIC
        if any(isinstance(c.operator, (cst.In, cst.NotIn)) for c in node.comparisons):
            return STATIC if all(v.static for v in vals) else UNKNOWN
        if any(v.traced for v in vals):
            return TRACED_MASK
        if all(v.static for v in vals):
            return STATIC
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
        else:
            vals = [self.expr(node.elt)]
        self.env = saved
        return STATIC if all(v.static for v in vals) else UNKNOWN

    # -------------------------------------------------------------------- calls
    def call(self, node: cst.Call) -> Value:
        func_v = self.expr(node.func)
        args = [self.expr(a.value) for a in node.args]
        q = self.model.qualname(node.func)
        in_abstract = self.func is not None and self.func.abstract
        if q is not None:
            if q.startswith("builtins."):
                name = q[9:]
                if name in jax_api.STATIC_BUILTINS:
                    return STATIC
                if name in _CONVERTING_BUILTINS:
                    if name in ("min", "max"):
                        return STATIC if all(v.static for v in args) else UNKNOWN
                    return STATIC if all(v.static for v in args) or name != "range" else UNKNOWN
                if name in jax_api.TRACED_BUILTINS:
                    return join_all(args) if args else STATIC
                if name in ("list", "tuple", "sorted", "reversed", "zip", "enumerate", "dict", "set"):
                    return STATIC if all(v.static for v in args) else UNKNOWN
                if name == "getattr" and len(node.args) >= 2 and isinstance(node.args[1].value, cst.SimpleString):
                    attr = node.args[1].value.evaluated_value
                    if attr in jax_api.STATIC_ATTRIBUTES:
                        return STATIC
                return UNKNOWN
            if q in jax_api.STATIC_ARRAY_FUNCTIONS:
                return STATIC
            if jax_api.array_module_function(q):
                if not in_abstract:
                    return CONCRETE_ARRAY
                return TRACED_MASK if q in jax_api.BOOLEAN_FUNCTIONS else TRACED_ARRAY
            root = q.split(".")[0]
            if root in ("numpy", "math", "operator", "functools", "itertools", "string"):
                return STATIC if all(v.static for v in args) else UNKNOWN
        if isinstance(node.func, cst.Attribute):
            base = self.values.get(node.func.value, UNKNOWN)
            meth = node.func.attr.value
            if base.traced or base.array:
                if meth in ("item", "tolist"):
                    return UNKNOWN
                if meth in jax_api.ARRAY_METHODS:
                    return TRACED_ARRAY if base.traced else CONCRETE_ARRAY
                if meth in jax_api.PYTREE_KEY_METHODS:
                    return UNKNOWN
                return UNKNOWN
            if base.static and q is None and all(v.static for v in args):
                return STATIC
        if isinstance(node.func, cst.Call) and in_abstract:
            from jaxlint.engine.tracing import transform_for

            # `jax.value_and_grad(f)(x)` / `jax.vmap(f)(x)` inside a trace give traced values.
            if transform_for(self.model, self.model.qualname(node.func.func)) is not None:
                return TRACED
        del func_v
        return self.helper_call(node, args)

    def helper_call(self, node: cst.Call, arg_values: list[Value]) -> Value:
        """A call from a traced function to a function of this file makes it a helper.

        Returns what the callee returns, as far as its last analysis knows.
        """
        caller = self.func
        if caller is None or not caller.traced:
            return UNKNOWN
        model = self.model
        callee = model.resolve_function(node.func)
        shift = 0
        if callee is None:
            klass = model.resolve_class(node.func)
            if klass is not None:
                callee = klass.methods.get("__init__")
                shift = 1
            else:
                callee = model.method_of_self(node.func)
                shift = 1
        if callee is None or callee is caller:
            return UNKNOWN
        traced, static = set(), set()
        positional = callee.positional[shift:]
        i = 0
        for arg, v in zip(node.args, arg_values):
            if arg.star:
                return UNKNOWN  # *args / **kwargs: cannot bind precisely
            if arg.keyword is not None:
                name = arg.keyword.value
            elif i < len(positional):
                name = positional[i]
                i += 1
            elif callee.vararg:
                name = callee.vararg
            else:
                continue
            if v.traced:
                traced.add(name)
            elif v.static:
                static.add(name)
        ctx = TraceContext(
            transforms=tuple(c for c in caller.transform_description().split("(")[:1] if c),
            abstract=caller.abstract, cached=caller.cached, via="helper",
            static=frozenset(static - traced), traced_params=frozenset(traced), origin=node)
        key = id(node)
        callee.callers.add(caller)
        if callee.contexts.get(key) != ctx:
            callee.contexts[key] = ctx
            self.mark_dirty(callee)
            return UNKNOWN
        if shift or callee.returns is None:
            return UNKNOWN  # a constructor returns an object
        return callee.returns


def _arith(a: Value, b: Value) -> Value:
    if a.traced or b.traced:
        # Arithmetic succeeded, so the traced operand is an array, not a pytree.
        return TRACED_ARRAY
    if a.static and b.static:
        return STATIC
    if a.array or b.array:
        return CONCRETE_ARRAY
    return UNKNOWN


def _body(node) -> list:
    body = node.body
    if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return body.body
    return body
