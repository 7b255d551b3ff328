"""JAX702: a 64-bit dtype asked of JAX while x64 is off gives a 32-bit array."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.constants import int_constant
from jaxlint.engine.model import children
from jaxlint.engine.project import project_facts

from jaxlint.engine.callees import argument_for, function_of_callable, module_passed
from jaxlint.jax_api import (
    EPOCH_CLOCK_CALLS, NUMPY_ARRAY_CONSTRUCTORS, X64_DTYPE_ARGUMENTS, X64_DTYPE_MODULES, X64_DTYPE_STRINGS, X64_DTYPES, X64_ENABLING_CALLS,
    X64_DTYPE_QUERIES, X64_JAX_MODULES, X64_NARROWED, X64_OPTION,
)
from jaxlint.rules._known_arrays import argument
from jaxlint.rules.base import Rule

# Narrowed to 32 bits, these change only values past 2**31.
_INTEGER_DTYPES = frozenset({"int64", "uint64"})


class Float64WithoutX64(Rule):
    code = "JAX702"
    name = "float64-without-x64"
    summary = "jnp.float64 / int64 / complex128 without jax_enable_x64 silently become 32-bit"
    severity = "warning"

    def check(self):
        if self._enables_x64():
            return
        reports = list(self._requests()) + list(self._numpy_requests()) + list(self._clock_readings())
        # The project is read only when the file asks for a 64-bit dtype.
        if reports and not self._project_enables_x64():
            yield from reports

    def _requests(self):
        model = self.model
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            dtype: Optional[str] = None
            where = ""
            if q is not None and q.startswith("jax.numpy.") and q[len("jax.numpy."):] in X64_DTYPES:
                # `jnp.float64(x)`: the dtype itself, called.
                dtype = X64_DTYPES[q[len("jax.numpy."):]]
                where = f"`{self.source(call.func)}(...)`"
            elif q is not None and q.startswith(X64_JAX_MODULES) and q not in X64_DTYPE_QUERIES:
                arg = _dtype_argument(call, q)
                dtype = arg is not None and self._x64_dtype(arg) or None
                where = f"`{self.source(call.func)}(...)` with dtype `{self.source(arg)}`" if dtype else ""
            elif q is None and isinstance(call.func, cst.Attribute) \
                    and (passed := self._passed_request(call)) is not None:
                # `xp.ones(n, dtype=xp.complex128)` in `def f(xp)` called as `f(jnp)`.
                arg, dtype, site = passed
                where = (f"`{self.source(call.func)}(...)` with dtype `{self.source(arg)}` (where "
                         f"`{self.source(site)}` is passed at line {model.line_of(site)})")
            elif q is None and isinstance(call.func, cst.Attribute) and call.func.attr.value == "astype" \
                    and self._jax_array(call.func.value):
                arg = argument(call, 0, "dtype")
                dtype = arg is not None and self._x64_dtype(arg) or None
                where = f"`.astype({self.source(arg)})`" if dtype else ""
            if not dtype or self._under_x64_check(call):
                continue
            if dtype in _INTEGER_DTYPES and not self._states_large_int(call):
                continue
            narrow = X64_NARROWED[dtype]
            if dtype in _INTEGER_DTYPES:
                loss = "which cannot hold the value stated here (it wraps around or raises OverflowError)"
                instead = "or keep the values in int32's range"
            else:
                loss = "(only a UserWarning), losing precision"
                instead = f"or ask for {narrow} explicitly"
            yield self.report(call, (
                f"{where} asks for {dtype}, but x64 is off: JAX silently gives {narrow} instead "
                f"{loss}; enable x64 with "
                f'`jax.config.update("jax_enable_x64", True)` at startup, {instead}'))

    def _numpy_requests(self):
        """`np.full(n, v, dtype=jnp.float64)` whose array reaches JAX: JAX's own 64-bit
        dtype asked of NumPy, which keeps it, and lost when a JAX function (or a jitted
        function) takes the array. A NumPy dtype (`np.float64`) asks NumPy for host
        data, often meant for NumPy alone: not reported."""
        model = self.model
        for call in model.nodes(cst.Call):
            if model.qualname(call.func) not in NUMPY_ARRAY_CONSTRUCTORS:
                continue
            arg = argument(call, 99, "dtype")
            q = model.qualname(arg) if arg is not None else None
            if q is None or not q.startswith("jax.numpy.") or self._x64_dtype(arg) != "float64" \
                    or self._under_x64_check(call):
                continue
            taker = next((c for c in self._array_readers(call) if self._reaches_jax(c)), None)
            if taker is None:
                continue
            yield self.report(call, (
                f"`{self.source(call)}` asks NumPy for float64, which it keeps, but x64 is off: "
                f"`{self.source(taker.func)}(...)` turns it into float32 without a warning, "
                f"losing precision; enable x64 with `jax.config.update(\"jax_enable_x64\", True)` "
                f"at startup, or ask for float32 explicitly"))

    def _array_readers(self, call: cst.Call):
        """The calls that take the array `call` makes as an argument: directly, or
        through the name it is bound to once."""
        model = self.model
        parent = model.parent(call)
        if isinstance(parent, cst.Arg) and isinstance(model.parent(parent), cst.Call):
            yield model.parent(parent)
            return
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1
                and isinstance(parent.targets[0].target, cst.Name)):
            return
        target = parent.targets[0].target
        scope = model.scope_of(target)
        bindings = scope.lookup(target.value) or []
        ours = next((b for b in bindings if b.node is parent), None)
        if ours is None:
            return
        # The block that runs the assignment: a read after it, in that block, sees it.
        block = next((a for a in model.ancestors(parent) if isinstance(a, (cst.BaseSuite, cst.Module))), None)
        for node in model.nodes(cst.Name):
            if node.value != target.value or model.scope_of(node) is not scope \
                    or model.order[node] < model.order[parent] or model.comprehension_variable(node):
                continue
            arg = model.parent(node)
            if not isinstance(arg, cst.Arg) or not isinstance(model.parent(arg), cst.Call) \
                    or not any(a is block for a in model.ancestors(node)):
                continue
            if all(b is ours or not model.order[parent] < b.order < model.order[node] for b in bindings):
                yield model.parent(arg)

    def _reaches_jax(self, call: cst.Call) -> bool:
        """A JAX function, a jitted function, or a function of this file that hands the
        parameter straight to a JAX function."""
        model = self.model
        q = model.qualname(call.func)
        if q is not None and q.startswith(X64_JAX_MODULES) and q not in X64_DTYPE_QUERIES:
            return True
        callee = function_of_callable(model, call.func)
        if callee is None or callee.is_lambda:
            return False
        if any(c.abstract for c in callee.contexts.values()):
            return True
        params = set(callee.all_params)
        for inner in model.nodes(cst.Call):
            if model.function_of(inner) is not callee:
                continue
            q = model.qualname(inner.func)
            if q is None or not q.startswith(X64_JAX_MODULES) or q in X64_DTYPE_QUERIES:
                continue
            if any(isinstance(a.value, cst.Name) and a.value.value in params for a in inner.args):
                return True
        return False

    def _clock_readings(self):
        """`t = time.time()` passed to a jitted function: seconds since 1970 (about 1.8e9)
        arrive as float32, whose spacing there is 128 s; `time.time_ns()` overflows int32."""
        model = self.model
        for call in model.nodes(cst.Call):
            callee = function_of_callable(model, call.func)
            if callee is None:
                continue
            shift = 1 if callee.is_method and isinstance(call.func, cst.Attribute) else 0
            for param in callee.all_params[shift:]:
                given = argument_for(call, callee, param, shift)
                clock = self._clock_reading(given) if given is not None else None
                if clock is None or not self._jitted_param(call, callee, param):
                    continue
                what = ("int32 cannot hold it: the call raises OverflowError" if clock == "time.time_ns"
                        else "float32 keeps it only to 128 s near 1.8e9")
                yield self.report(call, (
                    f"`{self.source(given)}` is `{clock}()` (since 1970) passed to jitted "
                    f"`{callee.name}`, but x64 is off: {what}; pass the time since a start "
                    f"(`{clock}() - t0`) or enable x64 with "
                    f"`jax.config.update(\"jax_enable_x64\", True)` at startup"),
                    clock=clock, callee=callee.name)
                break

    def _clock_reading(self, expr: cst.BaseExpression) -> Optional[str]:
        """`time.time()`, or a name bound only to it."""
        model = self.model
        if isinstance(expr, cst.Name):
            values = model.assigned_values(expr)
            if not values or len(values) != 1:
                return None
            expr = values[0]
        if isinstance(expr, cst.Call) and not expr.args:
            q = model.qualname(expr.func)
            return q if q in EPOCH_CLOCK_CALLS else None
        return None

    def _jitted_param(self, call: cst.Call, callee, param: str) -> bool:
        """Whether calling `call.func` runs `callee` under jit, with `param` traced: a
        decorated def, `jax.jit(f)(t)`, or a name bound once to `jax.jit(f)`."""
        model = self.model
        func = call.func
        if isinstance(func, cst.Name):
            values = model.assigned_values(func)
            if values and len(values) == 1 and isinstance(values[0], cst.Call):
                func = values[0]
        for key, ctx in callee.contexts.items():
            origin = key[0] if isinstance(key, tuple) else key
            applied = origin is func or (ctx.via == "decorator" and model.resolve_function(call.func) is callee)
            if applied and ctx.abstract and ctx.cached and param not in ctx.static \
                    and (ctx.traced_params is None or param in ctx.traced_params):
                return True
        return False

    # ------------------------------------------------------------------ helpers
    def _under_x64_check(self, call: cst.Call) -> bool:
        """Inside `if x.dtype == jnp.float64:` (or any test naming a 64-bit dtype): the
        code only runs when x64 is on, so it asks for what it gets."""
        model = self.model
        child = call
        for anc in model.ancestors(call):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
                return False
            if isinstance(anc, (cst.If, cst.IfExp, cst.While)) and child is not anc.test:
                stack = [anc.test]
                while stack:
                    node = stack.pop()
                    if self._x64_dtype(node):
                        return True
                    stack.extend(children(node))
            child = anc
        return False

    def _enables_x64(self) -> bool:
        return enables_x64(self.model)

    def _project_enables_x64(self) -> bool:
        """x64 turned on for the program elsewhere: a conftest.py, a package
        `__init__`, the launcher that imports this module, JAX_ENABLE_X64=1 in a
        script or README (the engine's project facts)."""
        model = self.model
        facts = project_facts(model.path, self.settings)
        return facts.x64_enabled_for(model.path, model.module.code) is not None

    def _states_large_int(self, call: cst.Call) -> bool:
        """An integer the call states that int32 cannot hold. Narrowed to int32,
        small integers (indices, counts, a zero token) keep their values: only a
        stated value past 2**31 overflows."""
        stack: list[cst.CSTNode] = [arg.value for arg in call.args]
        while stack:
            node = stack.pop()
            value = int_constant(self.model, node) if isinstance(node, cst.BaseExpression) else None
            if value is not None:
                if not -2**31 <= value < 2**31:
                    return True
                continue
            stack.extend(children(node))
        return False

    def _passed_request(self, call: cst.Call):
        """(dtype argument, dtype, the `jnp` a call site passes) for `xp.ones(n, dtype=xp.float64)`
        where some call site of this file makes `xp` the jax.numpy module."""
        model = self.model
        q = "jax.numpy." + call.func.attr.value
        arg = _dtype_argument(call, q)
        if arg is None:
            return None
        dtype = self._x64_dtype(arg)
        if dtype is None and isinstance(arg, cst.Attribute) and arg.attr.value in X64_DTYPES \
                and model.module.code_for_node(arg.value) == model.module.code_for_node(call.func.value):
            dtype = X64_DTYPES[arg.attr.value]  # `xp.float64` of the same module
        if dtype is None:
            return None
        site = module_passed(model, call.func.value, "jax.numpy")
        return (arg, dtype, site) if site is not None else None

    def _x64_dtype(self, expr: cst.BaseExpression) -> Optional[str]:
        """The 64-bit dtype `expr` names (`jnp.float64`, `np.int64`, `"float64"`), or None."""
        if isinstance(expr, cst.SimpleString):
            text = expr.evaluated_value
            if isinstance(text, bytes):
                return None
            text = text.lstrip("<=")
            return X64_DTYPE_STRINGS.get(text)
        q = self.model.qualname(expr)
        if q is None or "." not in q:
            return None
        module, name = q.rsplit(".", 1)
        if module in X64_DTYPE_MODULES and name in X64_DTYPES:
            return X64_DTYPES[name]
        return None

    def _jax_array(self, expr: cst.BaseExpression) -> bool:
        """Known to be a JAX array: the model says so, or a call of a JAX function."""
        if self.model.value(expr).array:
            return True
        if isinstance(expr, cst.Call):
            q = self.model.qualname(expr.func)
            return q is not None and q.startswith(("jax.numpy.", "jax.random.", "jax.lax."))
        return False


def _dtype_argument(call: cst.Call, q: str) -> Optional[cst.BaseExpression]:
    if q in X64_DTYPE_ARGUMENTS:
        index, keyword = X64_DTYPE_ARGUMENTS[q]
        return argument(call, index, keyword)
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dtype":
            return arg.value
    return None


def enables_x64(model) -> bool:
    """The file turns x64 on somewhere: `jax.config.update("jax_enable_x64", ...)`,
    `JAX_ENABLE_X64` in the environment, `jax.enable_x64(...)`, ..."""
    for node in model.nodes(cst.SimpleString):
        if X64_OPTION in node.value.lower():
            return True
    for node in model.nodes(cst.FormattedStringText):
        if X64_OPTION in node.value.lower():
            return True
    for node in model.nodes(cst.Name):
        if node.value.lower() == X64_OPTION:
            return True
    for node in model.nodes(cst.Call):
        if model.qualname(node.func) in X64_ENABLING_CALLS:
            return True
    for node in model.nodes(cst.ImportAlias):
        name = node.name
        if isinstance(name, cst.Attribute) and name.attr.value == "enable_x64" \
                or isinstance(name, cst.Name) and name.value == "enable_x64":
            return True
    return False
