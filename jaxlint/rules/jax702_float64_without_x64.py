"""JAX702: a 64-bit dtype asked of JAX while x64 is off gives a 32-bit array."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.constants import int_constant
from jaxlint.engine.model import children
from jaxlint.engine.project import project_facts

from jaxlint.jax_api import (
    X64_DTYPE_ARGUMENTS, X64_DTYPE_MODULES, X64_DTYPE_STRINGS, X64_DTYPES, X64_ENABLING_CALLS,
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
        reports = list(self._requests())
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
