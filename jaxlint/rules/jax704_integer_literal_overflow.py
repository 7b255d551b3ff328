"""JAX704: an int literal out of its dtype's range, in a call that wraps it silently."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint.engine.constants import int_constant, int_values_at_call_sites
from jaxlint.engine.project import project_facts
from jaxlint.jax_api import (DEFAULT_INT_DTYPE, DIGEST_BITS, INT_DTYPE_RANGES, RAISING_INT_CALLS,
                             SEED_INT_RANGES, WRAPPING_INT_CALLS, X64_DTYPE_MODULES)
from jaxlint.rules._known_arrays import argument, literal_real
from jaxlint.rules.base import Report, Rule
from jaxlint.rules.jax702_float64_without_x64 import enables_x64

# Constant folding stops at these sizes: `2**40`, `1 << 40`, never `10**10**10`.
_MAX_EXPONENT = 256


class IntegerLiteralOverflow(Rule):
    code = "JAX704"
    name = "integer-literal-overflow"
    summary = ("jnp.full(n, 2**40) / jnp.arange(2**31, ...) / lax.convert_element_type(2**40, int32): "
               "an int out of its dtype's range wraps silently")
    # A wrapping call raises nothing at run time: the page's examples end with an assert
    # that fails. A conversion that refuses the int (`jnp.asarray`) raises OverflowError.
    raises = "AssertionError"
    also_raises = ("OverflowError",)

    def check(self) -> Iterator[Report]:
        model = self.model
        x64 = None
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            spec = WRAPPING_INT_CALLS.get(q) if q else None
            if spec is None or any(a.star for a in call.args):
                continue
            positions, keywords, dtype_at = spec
            values = [argument(call, i, k) for i, k in zip(positions, keywords)]
            if any(v is not None and literal_real(v) is not None and constant_int(v) is None
                   for v in values):
                continue  # a float literal: a float result
            ints = [constant_int(v) if v is not None else None for v in values]
            if all(n is None for n in ints):
                continue
            dtype_arg = argument(call, *dtype_at) if dtype_at else None
            if dtype_arg is None:
                if q == "jax.lax.convert_element_type" or any(
                        v is not None and n is None for v, n in zip(values, ints)):
                    continue  # a non-literal operand decides the dtype
                if x64 is None:
                    x64 = enables_x64(model)
                if x64:
                    continue  # a Python int is int64 then
                dtype = DEFAULT_INT_DTYPE
            else:
                dtype = self._int_dtype(dtype_arg)
                if dtype is None:
                    continue
            low, high = INT_DTYPE_RANGES[dtype]
            found = _out_of_range(call, ints, low, high) if q == "jax.numpy.arange" else next(
                ((n, v) for n, v in zip(ints, values) if n is not None and not low <= n <= high), None)
            if found is None:
                continue
            value, node = found
            if low == 0 and value < 0:
                continue  # `full(n, -1, dtype=uint32)`: the all-ones bit pattern, often meant
            wrapped = (value - low) % (high - low + 1) + low
            yield self.report(node, (
                f"{value} does not fit in {dtype} ({low} to {high}), and `{self.source(call.func)}` "
                f"raises no OverflowError: it silently wraps it to {wrapped}; use a wider dtype "
                f"(enable x64 for int64), or a value in range"), model.function_of(call))

        yield from self._raising_conversions()
        yield from self._seeds_out_of_range()

    def _seeds_out_of_range(self) -> Iterator[Report]:
        """`jax.random.fold_in(key, salt)` with `salt = int(hashlib.sha512(s).hexdigest(), 16)`,
        or `PRNGKey(2**64)`: a seed or fold-in datum out of its range raises OverflowError."""
        model = self.model
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            spec = SEED_INT_RANGES.get(q) if q else None
            if spec is None or any(a.star for a in call.args):
                continue
            position, keyword, low, high = spec
            value = argument(call, position, keyword)
            if value is None:
                continue
            stated = int_constant(model, value, stdlib=True)
            if stated is not None:
                if low <= stated <= high:
                    continue
                what = f"{stated}"
            else:
                found = _digest_int(model, value)
                # Below the bound only when the digest's top bits are all 0: never, in practice.
                if found is None or found[0] - 32 <= high.bit_length():
                    continue
                what = f"an int made from a {found[1]} digest, of up to {found[0]} bits"
            out = self.report(value, (
                f"`{self.source(value)}` is {what}, out of the range {low} to {high} that "
                f"`{self.source(call.func)}` takes: it raises OverflowError; reduce it first "
                f"(`% 2**32`)"), model.function_of(call))
            # Confirm: the seed's conversion raises where it runs (no wrapped value to watch).
            out.confirm.update(kind="trace-error", expected="OverflowError")
            yield out

    def _raising_conversions(self) -> Iterator[Report]:
        """`jnp.asarray(n - 1)` of an int past int32, stated in the code or by a call site
        (`Discrete(sys.maxsize)`): with x64 off the conversion raises OverflowError."""
        model = self.model
        low, high = INT_DTYPE_RANGES[DEFAULT_INT_DTYPE]
        for call in model.nodes(cst.Call):
            q = model.qualname(call.func)
            if q not in RAISING_INT_CALLS or any(a.star for a in call.args) \
                    or any(a.keyword is not None for a in call.args):
                continue  # a dtype given: converted to it
            value = argument(call, RAISING_INT_CALLS[q], None)
            if value is None or literal_real(value) is not None and constant_int(value) is None:
                continue
            stated = int_constant(model, value, stdlib=True)
            found = [(stated, None)] if stated is not None else int_values_at_call_sites(model, value)
            bad = next(((n, site) for n, site in found if not low <= n <= high), None)
            if bad is None or enables_x64(model) or self._project_enables_x64():
                continue
            n, site = bad
            where = f" (from the call at line {model.line_of(site)})" if site is not None else ""
            out = self.report(value, (
                f"`{self.source(value)}` is {n}{where}, which does not fit in {DEFAULT_INT_DTYPE}: "
                f"with x64 off, `{self.source(call.func)}` raises OverflowError; enable x64, "
                f"or keep the value in range"), model.function_of(call))
            # Confirm: the conversion raises where it runs (no wrapped value to watch).
            out.confirm.update(kind="trace-error", expected="OverflowError")
            yield out

    def _project_enables_x64(self) -> bool:
        facts = project_facts(self.model.path, self.settings)
        return facts.x64_enabled_for(self.model.path, self.model.module.code) is not None

    def _int_dtype(self, expr: cst.BaseExpression) -> Optional[str]:
        """The 32-bit-or-narrower int dtype `expr` names (`jnp.uint8`, `"int32"`), or None."""
        if isinstance(expr, cst.SimpleString):
            text = expr.evaluated_value
            return text if isinstance(text, str) and text in INT_DTYPE_RANGES else None
        q = self.model.qualname(expr)
        if q is None or "." not in q:
            return None
        module, name = q.rsplit(".", 1)
        return name if module in X64_DTYPE_MODULES and name in INT_DTYPE_RANGES else None


def constant_int(expr: Optional[cst.BaseExpression]) -> Optional[int]:
    """The value of a constant int expression of literals (`2**40`, `1 << 31`, `-3`), or None."""
    if expr is None:
        return None
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        inner = constant_int(expr.expression)
        if inner is None:
            return None
        return -inner if isinstance(expr.operator, cst.Minus) else inner
    if isinstance(expr, cst.BinaryOperation):
        a, b = constant_int(expr.left), constant_int(expr.right)
        if a is None or b is None:
            return None
        op = expr.operator
        if isinstance(op, cst.Add):
            return a + b
        if isinstance(op, cst.Subtract):
            return a - b
        if isinstance(op, cst.Multiply):
            return a * b
        if isinstance(op, cst.Power) and 0 <= b <= _MAX_EXPONENT and abs(a) <= 2**16:
            return a ** b
        if isinstance(op, cst.LeftShift) and 0 <= b <= _MAX_EXPONENT:
            return a << b
    return None


def _out_of_range(call: cst.Call, ints: list, low: int, high: int):
    """`jnp.arange(a, b, s)` of int literals: (the first or last element, the call) when
    it does not fit. The elements are what must fit: arange(0, 2**31) ends at 2**31 - 1."""
    if any(a.keyword is not None and a.keyword.value != "dtype" for a in call.args):
        return None
    given = [constant_int(a.value) for a in call.args if a.keyword is None]
    if not given or len(given) > 3 or any(n is None for n in given):
        return None
    start, stop, step = (0, given[0], 1) if len(given) == 1 else (
        given[0], given[1], given[2] if len(given) == 3 else 1)
    if step == 0:
        return None
    r = range(start, stop, step)
    for element in (r[0], r[-1]) if r else ():
        if not low <= element <= high:
            return element, call
    return None


def _digest_int(model, expr: cst.BaseExpression, depth: int = 0) -> Optional[tuple[int, str]]:
    """(bits, the hash's name) for `int(hashlib.sha512(...).hexdigest(), 16)` or
    `int.from_bytes(h.digest(), ...)`, written in place or held by the name it reaches."""
    if depth > 3:
        return None
    if isinstance(expr, cst.Name):
        value = _reaching_value(model, expr)
        return _digest_int(model, value, depth + 1) if value is not None else None
    if not isinstance(expr, cst.Call) or not expr.args:
        return None
    q = model.qualname(expr.func)
    first = expr.args[0].value
    if q == "builtins.int" and len(expr.args) == 2 and _int_literal(expr.args[1].value) == 16:
        method = "hexdigest"
    elif q == "builtins.int.from_bytes" or (
            isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "from_bytes"
            and isinstance(expr.func.value, cst.Name) and expr.func.value.value == "int"):
        method = "digest"
    else:
        return None
    if not (isinstance(first, cst.Call) and isinstance(first.func, cst.Attribute)
            and first.func.attr.value == method and not first.args):
        return None
    hasher = first.func.value
    if isinstance(hasher, cst.Name):
        hasher = _reaching_value(model, hasher)
    if not isinstance(hasher, cst.Call):
        return None
    hq = model.qualname(hasher.func)
    return (DIGEST_BITS[hq], hq.rsplit(".", 1)[-1]) if hq in DIGEST_BITS else None


def _int_literal(expr: cst.BaseExpression) -> Optional[int]:
    return int(expr.value, 0) if isinstance(expr, cst.Integer) else None


def _reaching_value(model, name: cst.Name) -> Optional[cst.BaseExpression]:
    """The value `name = value` gives the read `name`: its one binding, or the nearest
    statement before the read in the same block when that statement assigns it (the
    statements between bind it nowhere)."""
    values = model.assigned_values(name)
    if values is not None:
        return values[0] if len(values) == 1 else None
    stmt: cst.CSTNode = name
    for anc in model.ancestors(name):
        if isinstance(anc, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            stmt = anc
            break
    block = model.parent(stmt)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)) or stmt not in block.body:
        return None
    bindings = model.scope_of(name).lookup(name.value) or []
    for before in reversed(block.body[:block.body.index(stmt)]):
        inside = [b for b in bindings if b.node is before or before in set(model.ancestors(b.node))]
        if not inside:
            continue
        node = inside[0].node
        if len(inside) == 1 and isinstance(node, cst.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name) and model.parent(node) is before:
            return node.value
        return None
    return None
