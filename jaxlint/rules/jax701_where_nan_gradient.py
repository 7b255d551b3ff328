"""JAX701: `jnp.where(cond, jnp.sqrt(x), y)` in a differentiated function: NaN gradient."""

from __future__ import annotations

from typing import Iterator, Optional

import libcst as cst

from jaxlint.engine.callees import module_passed
from jaxlint.engine.evaluate import _is_staticmethod
from jaxlint.engine.model import children

from jaxlint.jax_api import (DIFFERENTIATING, FORWARD_ONLY_TRANSFORMS, MASK_SIZED_SELECTIONS,
                             NAN_GRADIENT_DIVISIONS, NAN_GRADIENT_FUNCTIONS, NAN_GRADIENT_MASKED_REDUCTIONS,
                             NAN_GRADIENT_POWERS, NAN_GRADIENT_SAFE_WRAPPERS, NAN_GRADIENT_SELECTIONS,
                             NAN_GRADIENT_SINGULAR, ZERO_PRESERVING_ROOTS, ZERO_SINGULAR_NORMS,
                             ZERO_KEEPING_CALLS, EXPAND_DIMS)
from jaxlint.rules.base import Rule

_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


class WhereNanGradient(Rule):
    code = "JAX701"
    traced_code = True
    name = "where-nan-gradient"
    summary = ("jnp.where(cond, jnp.sqrt(x), 0) under grad: the untaken branch's inf derivative "
               "makes the gradient NaN")
    # Nothing raises at run time: the page's examples end with
    # `assert not jnp.isnan(g)`, which fails.
    raises = "AssertionError"

    def report(self, node, message, function=None, expected=None, **confirm):
        out = super().report(node, message, function, expected, **confirm)
        out.confirm.pop("expected", None)  # the code itself raises nothing: confirm has no recipe
        return out

    def check(self):
        model = self.model
        reported = set()  # an operation bound to a name may reach several selections
        for selection in _selections(model):
            node, cond_expr = selection.node, selection.condition
            func = model.function_of(node)
            if func is None or not _reverse_mode(func):
                continue
            if selection.sized_by_mask and func.abstract:
                continue  # a mask-sized result raises under jit first (JAX205)
            cond = _condition(model, func, cond_expr)
            guarded = _names(cond) | _names(cond_expr)
            if not guarded:
                continue
            safe = _safe_names(model, func.node, node)
            differentiated = _differentiated_names(model, func)
            for taken_when, branch, other in selection.branches:
                # The other branch's own where handles `w` near zero (`jnp.abs(w) < eps`):
                # the code expects w == 0 where this branch is not taken.
                near_zero = _zero_tested(model, func, other) if other is not None else set()
                for op, arg in _risky_through_names(model, func, branch):
                    if op in reported:
                        continue
                    within = guarded | near_zero
                    tested = arg if _names(arg) & within else _held_value(model, func, arg)
                    names = _names(tested) & within
                    root = None
                    if not names:
                        # `dist = jnp.sqrt(d2)` ... `jnp.where(dist > 0, dist, 0.0)`: the
                        # condition tests the root, which is 0 exactly where d2 is.
                        root = _root_name(model, func, op)
                        names = {root} & guarded if root is not None else set()
                    if not names or names <= safe or _is_safe(model, tested, guarded):
                        continue
                    value = model.value(arg)
                    traced = _traced_names(func) | (differentiated or set())
                    # d(a / b)/da = 1 / b: a differentiated numerator meets the infinity
                    # at b = 0 even where b itself is a constant.
                    # Only where the condition tests the divisor itself (`x2 == 0`): a
                    # constant divisor the condition does not test is never 0.
                    numerator = _numerator(model, op)
                    if not (numerator is not None and _names(numerator) & traced
                            and _tests(model, cond, arg)) and (
                            value.static or not (value.maybe_tracer or names & traced)):
                        continue
                    if differentiated is not None and not _names(op) & differentiated:
                        continue  # no gradient flows through the branch: nothing to multiply by 0
                    if _excluded_finite(model, cond, taken_when, op, arg, root) or _never_zero(model, func, op, arg):
                        continue
                    reported.add(op)
                    yield self.report(op, self._message(selection, op, arg, func), func)
                    break
        yield from self._pairwise_roots(reported)

    def _pairwise_roots(self, reported):
        """A root (or norm) of the pairwise differences of one array with itself
        (`jnp.sqrt(jnp.sum((x[:, None] - x[None]) ** 2, -1))`): x_i - x_i is 0 on the
        diagonal, where the root's derivative is inf, and the diagonal's derivative
        (d(x_i - x_i)/dx = 0) multiplies it: NaN, masked afterwards or not."""
        model = self.model
        for op, arg in _roots(model):
            if op in reported:
                continue
            func = model.function_of(op)
            if func is None or not _reverse_mode(func):
                continue
            found = _pairwise(model, func, arg, 0)
            if found is None:
                continue
            difference, base = found
            differentiated = _differentiated_names(model, func)
            if differentiated is not None and not _names(arg) & differentiated \
                    and not _names(difference) & differentiated:
                continue  # no gradient flows into the root
            reported.add(op)
            yield self.report(op, (
                f"`{self.source(op)}` is differentiated on the diagonal of the pairwise differences "
                f"`{self.source(difference)}` (`{base}` against itself: x_i - x_i = 0), where its "
                f"derivative is inf: under {_reverse_description(func)} the gradient is NaN, masked "
                f"afterwards or not; make the diagonal safe before the root (`jnp.where(jnp.eye(n, "
                f"dtype=bool), 1.0, d2)`, then mask the result)"), func)

    def _message(self, selection, op, arg, func) -> str:
        head = (f"`{self.source(op)}` is differentiated where {selection.drops}: under "
                f"{_reverse_description(func)}, 0 times its inf derivative makes the gradient NaN; ")
        safe = f"`safe = jnp.where(cond, {self.source(arg)}, 1.0)`"
        if selection.is_where:
            return head + f"make the argument safe first ({safe}) and use it in the branch (the double-where pattern)"
        if selection.is_index:
            return head + (f"index the argument before the operation (`{self.source(arg)}[{self.source(selection.condition)}]`), "
                           f"or make it safe first ({safe})")
        return head + f"make the argument safe first ({safe}) and apply the operation to it"


class _Selection:
    """A selection that drops a value's elements where a condition says so: `node`, the
    `condition`, and (taken when, kept operand, the other operand or None) per operand."""

    def __init__(self, node, condition, branches, drops, sized_by_mask=False, is_where=False, is_index=False):
        self.node = node
        self.condition = condition
        self.branches = branches
        self.drops = drops
        self.sized_by_mask = sized_by_mask
        self.is_where = is_where
        self.is_index = is_index


def _selections(model) -> Iterator[_Selection]:
    """Every `jnp.where` / `lax.select` / `jnp.compress` / `jnp.extract`, reduction with a
    `where=` mask, and boolean-mask index (`y[x > 0]`) of the file: each drops elements,
    and under reverse mode each dropped element gets a cotangent of 0."""
    code = model.module.code_for_node
    for call in model.nodes(cst.Call):
        q = model.qualname(call.func)
        spec = NAN_GRADIENT_SELECTIONS.get(q) if q else None
        if spec is None and _is_where(model, call):
            spec = NAN_GRADIENT_SELECTIONS["jax.numpy.where"]
        if spec is not None:
            cond_at, kept, dropped = spec
            n = 2 if dropped is None else 3
            positional = call.args[:n]
            # A where / select has exactly its three operands; compress takes `axis`, `size`.
            if len(positional) != n or any(a.keyword is not None or a.star for a in positional) \
                    or len(call.args) > n and q not in MASK_SIZED_SELECTIONS:
                continue
            values = [a.value for a in positional]
            name = (q or "jnp.where").replace("jax.numpy.", "jnp.").replace("jax.lax.", "lax.")
            if dropped is None:
                sized = not any(a.keyword is not None and a.keyword.value == "size" for a in call.args)
                yield _Selection(call, values[cond_at], [(True, values[kept], None)], f"{name} drops it",
                                 sized_by_mask=sized)
            else:
                yield _Selection(call, values[cond_at], [(True, values[kept], values[dropped]),
                                                         (False, values[dropped], values[kept])],
                                 f"{name} does not take it", is_where=True)
        elif q in NAN_GRADIENT_MASKED_REDUCTIONS:
            mask = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "where"), None)
            first = call.args[0] if call.args else None
            if mask is None or first is None or first.keyword is not None or first.star:
                continue
            name = q.replace("jax.numpy.", "jnp.")
            yield _Selection(call, mask, [(True, first.value, None)],
                             f"the `where=` mask of {name} leaves it out")
    for sub in model.nodes(cst.Subscript):
        # `y[mask]`: keeps y where a boolean mask holds (an integer index is no test of y).
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index) \
                or isinstance(sub.value, cst.Attribute) and sub.value.attr.value == "at":
            continue
        mask = sub.slice[0].slice.value
        if not model.value(mask).boolean:
            continue
        yield _Selection(sub, mask, [(True, sub.value, None)], f"the mask `{code(mask)}` drops it",
                         sized_by_mask=True, is_index=True)


def _roots(model) -> Iterator[tuple[cst.CSTNode, cst.BaseExpression]]:
    """(operation, argument) for each root or norm of the file: 0 where the argument is 0,
    with an infinite derivative there (`jnp.sqrt`, `x ** 0.5`, `jnp.linalg.norm`)."""
    for call in model.nodes(cst.Call):
        q = model.qualname(call.func)
        pos = [a.value for a in call.args if a.keyword is None and not a.star]
        if pos and (q in ZERO_PRESERVING_ROOTS or q in ZERO_SINGULAR_NORMS):
            yield call, pos[0]
        elif q in NAN_GRADIENT_POWERS and len(pos) >= 2 and (p := _number(pos[1])) is not None and 0 < p < 1:
            yield call, pos[0]
    for op in model.nodes(cst.BinaryOperation):
        if isinstance(op.operator, cst.Power) and (p := _number(op.right)) is not None and 0 < p < 1:
            yield op, op.left


def _pairwise(model, func, expr: cst.BaseExpression, depth: int):
    """(the difference, its array's source) when `expr` is 0 on a diagonal: the pairwise
    differences of one array with itself (`x[:, None] - x[None, :]`, `jnp.expand_dims(x, 0)
    - jnp.expand_dims(x, 1)`), or what squares, absolute values and sums over the last axis
    make of them, through names bound once and a helper's parameters that every call passes
    the two expansions. Anything else (`+ eps`, a where) is not known to be 0: None."""
    if depth > _PAIRWISE_DEPTH:
        return None
    if isinstance(expr, cst.Name):
        values = model.assigned_values(expr)
        if values is not None and len(values) == 1 and model.function_of(values[0]) is func:
            return _pairwise(model, func, values[0], depth + 1)
        return None
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.Subtract):
            base = _self_difference(model, func, expr.left, expr.right)
            return (expr, base) if base is not None else None
        if isinstance(expr.operator, cst.Power) and (p := _number(expr.right)) is not None and p > 0:
            return _pairwise(model, func, expr.left, depth + 1)
        if isinstance(expr.operator, cst.Multiply) and \
                model.module.code_for_node(expr.left) == model.module.code_for_node(expr.right):
            return _pairwise(model, func, expr.left, depth + 1)  # `d * d`
        return None
    if isinstance(expr, cst.Call):
        pos = [a.value for a in expr.args if a.keyword is None and not a.star]
        q = model.qualname(expr.func)
        if q in ZERO_KEEPING_CALLS and len(pos) == 1:
            return _pairwise(model, func, pos[0], depth + 1)
        if q in NAN_GRADIENT_POWERS and len(pos) == 2 and (p := _number(pos[1])) is not None and p > 0:
            return _pairwise(model, func, pos[0], depth + 1)
        # A sum over the last axis adds the diagonal's zeros only (`jnp.sum(d ** 2, axis=-1)`,
        # `(d ** 2).sum(-1)`); over every axis it adds the off-diagonal too.
        if q == "jax.numpy.sum" and pos and _last_axis(expr, 1):
            return _pairwise(model, func, pos[0], depth + 1)
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "sum" and q is None \
                and _last_axis(expr, 0):
            return _pairwise(model, func, expr.func.value, depth + 1)
    return None


#: How many links (names, squares, sums) back a root's argument is followed.
_PAIRWISE_DEPTH = 6


def _last_axis(call: cst.Call, position: int) -> bool:
    """The call's `axis` (by keyword, or positional at `position`) is -1."""
    given = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "axis"), None)
    pos = [a.value for a in call.args if a.keyword is None and not a.star]
    if given is None and len(pos) > position:
        given = pos[position]
    return given is not None and _number(given) == -1


def _self_difference(model, func, left: cst.BaseExpression, right: cst.BaseExpression) -> Optional[str]:
    """The array's source when `left - right` pairs one array with itself along two new axes;
    for two parameters of `func`, at every call of it (at least one)."""
    a, b = _expansion(model, func, left), _expansion(model, func, right)
    if a is not None and b is not None:
        return a[0] if a[0] == b[0] and a[1] != b[1] else None
    if not (isinstance(left, cst.Name) and isinstance(right, cst.Name)
            and left.value in func.positional and right.value in func.positional):
        return None
    from jaxlint.engine.callees import argument_for, call_sites

    bases = set()
    for call, shift in call_sites(model, func):
        caller = model.function_of(call)
        x, y = argument_for(call, func, left.value, shift), argument_for(call, func, right.value, shift)
        if caller is None or x is None or y is None:
            return None
        a, b = _expansion(model, caller, x), _expansion(model, caller, y)
        if a is None or b is None or a[0] != b[0] or a[1] == b[1]:
            return None
        bases.add(a[0])
    return bases.pop() if len(bases) == 1 else None


def _expansion(model, func, expr: cst.BaseExpression, depth: int = 0) -> Optional[tuple[str, int]]:
    """(the array's source, where the new axis is) for `x[:, None]` (1), `x[None]` (0),
    `x[None, :, :]` (0), `jnp.expand_dims(x, 1)` (1), through a name bound once."""
    code = model.module.code_for_node
    if isinstance(expr, cst.Name) and depth < 3:
        values = model.assigned_values(expr)
        if values is not None and len(values) == 1 and model.function_of(values[0]) is func:
            return _expansion(model, func, values[0], depth + 1)
        return None
    if isinstance(expr, cst.Subscript):
        new = []
        for i, el in enumerate(expr.slice):
            s = el.slice
            if isinstance(s, cst.Index) and isinstance(s.value, cst.Name) and s.value.value == "None":
                new.append(i)
            elif not (isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None):
                return None  # an index or a bounded slice picks a part of the array
        return (code(expr.value), new[0]) if len(new) == 1 else None
    if isinstance(expr, cst.Call) and model.qualname(expr.func) in EXPAND_DIMS:
        pos = [a.value for a in expr.args if a.keyword is None and not a.star]
        axis = next((a.value for a in expr.args if a.keyword is not None and a.keyword.value == "axis"), None)
        axis = axis if axis is not None else (pos[1] if len(pos) > 1 else None)
        n = _number(axis) if axis is not None else None
        return (code(pos[0]), int(n)) if pos and n is not None and n >= 0 and n == int(n) else None
    return None


def _is_where(model, call: cst.Call) -> bool:
    """`jnp.where`, or `xp.where` with jax.numpy handed in as `xp` by a call site
    (`def f(x, xp=np)` ... `f(x, xp=jnp)` under grad: that run differentiates it)."""
    if model.qualname(call.func) == "jax.numpy.where":
        return True
    return (isinstance(call.func, cst.Attribute) and call.func.attr.value == "where"
            and isinstance(call.func.value, cst.Name) and model.qualname(call.func.value) is None
            and module_passed(model, call.func.value, "jax.numpy") is not None)


def _condition(model, func, cond: cst.BaseExpression) -> cst.BaseExpression:
    """The condition itself when it is a name bound once in the same function:
    `parallel = u == 0.0` ... `jnp.where(parallel, 0.0, v / u)` tests `u` all the same."""
    if isinstance(cond, cst.Name):
        values = model.assigned_values(cond)
        if values is not None and len(values) == 1 and model.function_of(values[0]) is func:
            return values[0]
    return cond


def _reverse_mode(func) -> bool:
    """Traced by grad / value_and_grad / jacrev / vjp, directly or as a helper."""
    return any(c.differentiates and not set(c.transforms) <= FORWARD_ONLY_TRANSFORMS
               for c in func.contexts.values())


def _reverse_description(func, depth: int = 0) -> str:
    """The reverse-mode transform to name in the message (`grad`, `jit(grad)`, `jacrev`;
    `grad, through lax.scan` for a body applied inside a differentiated function)."""
    for c in func.contexts.values():
        if c.differentiates and not set(c.transforms) <= FORWARD_ONLY_TRANSFORMS:
            if c.via in ("body", "wrapper") and c.within is not None and depth < 3:
                return f"{_reverse_description(c.within, depth + 1)}, through {c.describe()}"
            if not any(t.rsplit(".", 1)[-1] in _REVERSE_NAMES for t in c.transforms):
                return f"reverse-mode differentiation (through {c.describe()})"
            return c.describe()
    return "grad"


#: The short names of reverse-mode transforms, as trace contexts list them.
_REVERSE_NAMES = frozenset({q.rsplit(".", 1)[-1] for q in DIFFERENTIATING} | {"vjp"})


def _traced_names(func) -> set[str]:
    """Traced parameters, and the names the function binds from them (under grad,
    `d2 = jnp.sum(x ** 2)` is a tracer too; the value analysis calls it concrete)."""
    return _derived_names(func, {p for p, v in func.param_values.items() if v.traced})


def _differentiated_names(model, func, depth: int = 0) -> Optional[set[str]]:
    """The parameters reverse mode differentiates (grad's `argnums`, by default the
    first; a helper's traced parameters, or those its caller passes differentiated
    values) and the names bound from them; None when some context does not say."""
    params = list(func.positional)
    out: set[str] = set()
    for c in func.contexts.values():
        if not c.differentiates or set(c.transforms) <= FORWARD_ONLY_TRANSFORMS:
            continue
        if c.via == "helper":
            if c.traced_params is None:
                return None
            out |= set(c.traced_params)
            if not c.traced_params:
                # Under grad alone the value analysis keeps arrays concrete: follow what
                # the caller passes (`self.pair(r)` with `r` made from grad's argument).
                passed = _differentiated_arguments(model, func, c.origin, depth)
                if passed is None:
                    return None
                out |= passed
            continue
        argnums = _argnums(model, c.origin, func)
        if argnums is None:
            return None
        # `jax.grad(pot.energy)`: the bound object fills `self`, and argnums count after it.
        bound = list(params)
        if func.is_method and c.via == "wrapper" and params and params[0] in c.static:
            bound = params[1:]
        out |= {bound[i] for i in argnums if -len(bound) <= i < len(bound)}
    return _derived_names(func, out)


def _differentiated_arguments(model, func, call, depth: int) -> Optional[set[str]]:
    """The parameters of `func` that `call` passes values derived from its caller's
    differentiated names."""
    caller = model.function_of(call) if isinstance(call, cst.Call) else None
    if caller is None or caller is func or depth >= 3:
        return None
    caller_names = _differentiated_names(model, caller, depth + 1)
    if caller_names is None:
        return None
    # `self.pair(r)` / `pot.pair(r)`: the object fills `self` (a staticmethod has none).
    shift = 1 if func.is_method and isinstance(call.func, cst.Attribute) and not _is_staticmethod(func) else 0
    positional = func.positional[shift:]
    out: set[str] = set()
    if shift and func.positional and _names(call.func.value) & caller_names:
        # `SO3.exp(x).log()`: the object the method runs on is made from differentiated values.
        out.add(func.positional[0])
    i = 0
    for arg in call.args:
        if arg.star:
            return None
        name = arg.keyword.value if arg.keyword is not None else (
            positional[i] if i < len(positional) else None)
        if arg.keyword is None:
            i += 1
        if name is not None and _names(arg.value) & caller_names:
            out.add(name)
    return out


def _argnums(model, origin, func) -> Optional[tuple[int, ...]]:
    """`argnums` of the differentiating transform in a decorator or wrapping call:
    `@jax.grad` -> (0,), `jax.jit(jax.grad(f, argnums=(0, 1)))` -> (0, 1)."""
    node = origin
    while node is not None:
        if isinstance(node, cst.Call) and model.qualname(node.func) == "functools.partial" and node.args:
            spec = DIFFERENTIATING.get(model.qualname(node.args[0].value))
            if spec is None:
                return None
            return _argnums_given(node, spec, 1)
        q = model.qualname(node.func if isinstance(node, cst.Call) else node)
        spec = DIFFERENTIATING.get(q) if q else None
        if spec is not None:
            if not isinstance(node, cst.Call):
                return (0,)  # `@jax.grad`
            first = node.args[0].value if node.args else None
            if first is func.node or isinstance(first, cst.Name) and first.value == func.name \
                    or isinstance(first, cst.Attribute) and first.attr.value == func.name:  # obj.method
                return _argnums_given(node, spec, 0)
        if not isinstance(node, cst.Call) or not node.args:
            return None
        node = node.args[0].value  # jax.jit(jax.grad(f)): look inside
    return None


def _argnums_given(call: cst.Call, spec, before: int) -> Optional[tuple[int, ...]]:
    """The literal argnums of a grad call (default (0,)); `before`: arguments ahead of
    the function's options (1 for `partial(jax.grad, ...)` without the function)."""
    if not spec.has_argnums:
        return (0,)
    given = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "argnums"), None)
    pos = [a.value for a in call.args if a.keyword is None]
    if given is None and before == 0 and spec.argnums_position is not None and len(pos) > spec.argnums_position:
        given = pos[spec.argnums_position]  # jax.grad(f, 1)
    if given is None:
        return (0,)
    items = [el.value for el in given.elements] if isinstance(given, (cst.Tuple, cst.List)) else [given]
    out = tuple(_number(i) for i in items)
    if any(v is None or v != int(v) for v in out):
        return None
    return tuple(int(v) for v in out)


def _excluded_finite(model, cond: cst.BaseExpression, taken_when: bool, op: cst.CSTNode,
                     arg: cst.BaseExpression, root: Optional[str] = None) -> bool:
    """`jnp.where(x < 1, jnp.sqrt(x), 1)`: the condition compares the risky argument with
    a number, and the inputs it leaves to the other branch hold no point where the
    operation's derivative is infinite (NaN needs 0 times inf there). `root`: a name
    bound to the operation itself, a root that the condition may compare with 0 instead
    (anything else it says of the root is not read: not definite)."""
    singular = _singular_set(model, op)
    if singular is None or not isinstance(cond, cst.Comparison) or len(cond.comparisons) != 1:
        return root is not None
    target = cond.comparisons[0]
    code = model.module.code_for_node
    op_name = type(target.operator).__name__
    if root is not None:
        # In the root's own values the singular point is 0 (where the argument is 0); a
        # negative argument's NaN root compares False, so it is untaken all the same.
        sides = [s for s in (cond.left, target.comparator) if isinstance(s, cst.Name) and s.value == root]
        other = target.comparator if cond.left in sides else cond.left
        if not sides or _bound(other) is None:
            return True
        if other is cond.left:
            op_name = _FLIPPED.get(op_name, op_name)
        c = _bound(other)
        singular = "zero"
    elif code(cond.left) == code(arg) and _bound(target.comparator) is not None:
        c = _bound(target.comparator)
    elif code(target.comparator) == code(arg) and _bound(cond.left) is not None:
        c = _bound(cond.left)
        op_name = _FLIPPED.get(op_name, op_name)
    else:
        return False
    if op_name not in _NEGATED:
        return False
    # The untaken inputs: where the condition has the other truth value.
    excluded = _NEGATED[op_name] if taken_when else op_name
    return not _meets(excluded, c, singular)


def _root_name(model, func, op: cst.CSTNode) -> Optional[str]:
    """The name bound once, in the same function, to exactly `op` when `op` is a root
    that is 0 where its argument is (`dist = jnp.sqrt(d2)`, `r = s ** 0.5`)."""
    if isinstance(op, cst.Call):
        if model.qualname(op.func) not in ZERO_PRESERVING_ROOTS:
            return None
    elif not (isinstance(op, cst.BinaryOperation) and isinstance(op.operator, cst.Power)
              and (p := _number(op.right)) is not None and 0 < p < 1):
        return None
    assign = model.parent(op)
    if not (isinstance(assign, cst.Assign) and assign.value is op and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)):
        return None
    name = assign.targets[0].target
    bindings = model.scope_of(name).lookup(name.value) or []
    if len(bindings) != 1 or model.function_of(op) is not func:
        return None
    return name.value


def _never_zero(model, func, op: cst.CSTNode, arg: cst.BaseExpression) -> bool:
    """`1. / s` with `s = 1. / d`: a quotient of a nonzero number is 0 for no finite `d`
    (float32's 1 / d underflows to a subnormal, not to 0), so a division by it has no
    singular point; the infinity at d = 0 is `s`'s own, on both sides of the where."""
    if _singular_set(model, op) != "zero":
        return False
    if isinstance(arg, cst.Name):
        values = model.assigned_values(arg)
        if values is None or len(values) != 1 or model.function_of(values[0]) is not func:
            return False
        arg = values[0]
    numerator = _numerator(model, arg)
    return numerator is not None and _number(numerator) not in (None, 0.0)


def _bound(expr: cst.BaseExpression) -> Optional[float]:
    """A literal threshold, or a named one (`x < min_sigma_sq`, `r > self.cutoff`) read as
    a small positive number: thresholds on a quantity one divides by are positive in the
    code people write, and when its sign is unknown the finding is not definite."""
    n = _number(expr)
    if n is not None:
        return n
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return _TINY
    return None


_TINY = 1e-300

_FLIPPED = {"GreaterThan": "LessThan", "LessThan": "GreaterThan",
            "GreaterThanEqual": "LessThanEqual", "LessThanEqual": "GreaterThanEqual"}
_NEGATED = {"GreaterThan": "LessThanEqual", "LessThanEqual": "GreaterThan",
            "LessThan": "GreaterThanEqual", "GreaterThanEqual": "LessThan",
            "Equal": "NotEqual", "NotEqual": "Equal"}


def _meets(region: str, c: float, singular: str) -> bool:
    """Whether {x : x <region> c} holds a point of the singular set ("zero": {0},
    "nonpositive": x <= 0)."""
    if singular == "zero":
        return {"GreaterThan": 0 > c, "GreaterThanEqual": 0 >= c, "LessThan": 0 < c,
                "LessThanEqual": 0 <= c, "Equal": c == 0, "NotEqual": True}[region]
    return {"GreaterThan": c < 0, "GreaterThanEqual": c <= 0, "LessThan": True,
            "LessThanEqual": True, "Equal": c <= 0, "NotEqual": True}[region]


def _zero_tested(model, func, branch: cst.BaseExpression) -> set[str]:
    """The names that a jnp.where inside `branch` tests for 0 (`w == 0`) or for a region
    around 0 (`jnp.abs(w) < eps`): values the branch expects to be 0 at times."""
    out: set[str] = set()
    for node in _walk_expr(branch):
        if not (isinstance(node, cst.Call) and _is_where(model, node) and node.args):
            continue
        cond = _condition(model, func, node.args[0].value)
        if not isinstance(cond, cst.Comparison) or len(cond.comparisons) != 1:
            continue
        target = cond.comparisons[0]
        op = type(target.operator).__name__
        sides = [(cond.left, target.comparator, op), (target.comparator, cond.left, _FLIPPED.get(op, op))]
        for tested, bound, relation in sides:
            # `w == 0`, or `|w| < eps`, a region around 0 (a named or computed bound is
            # read as a positive threshold, as in `_bound`).
            value = _number(bound)
            if value is None and not isinstance(bound, (cst.Name, cst.Attribute, cst.Call)):
                continue
            if relation == "Equal" and value != 0 or relation != "Equal" and value is not None and value <= 0 \
                    or relation not in ("Equal", "LessThan", "LessThanEqual"):
                continue
            if isinstance(tested, cst.Call) and model.qualname(tested.func) in _MAGNITUDES \
                    and len(tested.args) == 1:
                tested = tested.args[0].value
            elif relation != "Equal":
                continue  # `w < eps` holds for every negative w: not a test for 0
            if isinstance(tested, cst.Name):
                out.add(tested.value)
    return out


#: |x|: `jnp.abs(w) < eps` tests w for zero.
_MAGNITUDES = frozenset({"jax.numpy.abs", "jax.numpy.absolute", "abs"})


def _tests(model, cond: cst.BaseExpression, arg: cst.BaseExpression) -> bool:
    """`cond` compares `arg` itself with a number (`x2 == 0`, `0 < count`)."""
    if not isinstance(cond, cst.Comparison) or len(cond.comparisons) != 1:
        return False
    code = model.module.code_for_node
    left, right = cond.left, cond.comparisons[0].comparator
    return code(arg) == code(left) and _number(right) is not None \
        or code(arg) == code(right) and _number(left) is not None


def _numerator(model, op: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """The dividend of a division (`a / b`, `jnp.divide(a, b)`), None for other operations."""
    if isinstance(op, cst.BinaryOperation):
        return op.left if isinstance(op.operator, cst.Divide) else None
    if isinstance(op, cst.Call) and model.qualname(op.func) in NAN_GRADIENT_DIVISIONS:
        pos = [a.value for a in op.args if a.keyword is None and not a.star]
        return pos[0] if pos else None
    return None


def _singular_set(model, op: cst.CSTNode) -> Optional[str]:
    if isinstance(op, cst.BinaryOperation):
        if isinstance(op.operator, cst.Divide):
            return "zero"
        p = _number(op.right)
        return None if p is None else ("zero" if p == int(p) else "nonpositive")
    if isinstance(op, cst.Call):
        q = model.qualname(op.func)
        if q in NAN_GRADIENT_DIVISIONS:
            return "zero"
        if q in NAN_GRADIENT_POWERS:
            pos = [a.value for a in op.args if a.keyword is None and not a.star]
            p = _number(pos[1]) if len(pos) > 1 else None
            return None if p is None else ("zero" if p == int(p) else "nonpositive")
        return NAN_GRADIENT_SINGULAR.get(q)
    return None


def _derived_names(func, start: set[str]) -> set[str]:
    """`start` and the names the function binds from them."""
    out = set(start)
    assigns = []
    stack = children(func.node)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and node.value is not None:
            targets = ([t.target for t in node.targets] if isinstance(node, cst.Assign)
                       else [node.target])
            assigns.append((_names(node.value), {n for t in targets for n in _names(t)}))
        stack.extend(children(node))
    changed = True
    while changed:
        changed = False
        for used, bound in assigns:
            if used & out and not bound <= out:
                out |= bound
                changed = True
    return out


def _names(expr: cst.CSTNode) -> set[str]:
    out: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(node.value)
        elif isinstance(node, _NESTED):
            continue
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        else:
            stack.extend(children(node))
    return out


def _number(expr: cst.BaseExpression) -> Optional[float]:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        inner = _number(expr.expression)
        if inner is None:
            return None
        return -inner if isinstance(expr.operator, cst.Minus) else inner
    if isinstance(expr, (cst.Integer, cst.Float)):
        try:
            return float(expr.evaluated_value)
        except (ValueError, OverflowError):
            return None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, tuple(_FOLDED)):
        # `1 / 3`, `2 / 3`: an exponent written as arithmetic on literals.
        left, right = _number(expr.left), _number(expr.right)
        if left is None or right is None:
            return None
        try:
            return _FOLDED[type(expr.operator)](left, right)
        except (ZeroDivisionError, OverflowError):
            return None
    return None


_FOLDED = {cst.Add: lambda a, b: a + b, cst.Subtract: lambda a, b: a - b,
           cst.Multiply: lambda a, b: a * b, cst.Divide: lambda a, b: a / b}


def _bad_exponent(expr: cst.BaseExpression) -> bool:
    """A literal exponent with an infinite derivative at 0: fractional or negative."""
    p = _number(expr)
    return p is not None and (p < 0 or (p != int(p) and p < 1))


def _risky(model, expr: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.BaseExpression]]:
    """(operation, its risky argument) for each out-of-range-derivative op in `expr`."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, cst.Call):
            q = model.qualname(node.func)
            pos = [a.value for a in node.args if a.keyword is None and not a.star]
            if q in NAN_GRADIENT_FUNCTIONS and pos:
                yield node, pos[0]
            elif q in NAN_GRADIENT_DIVISIONS and len(pos) >= 2:
                yield node, pos[1]
            elif q in NAN_GRADIENT_POWERS and len(pos) >= 2 and _bad_exponent(pos[1]):
                yield node, pos[0]
        elif isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.Divide):
                yield node, node.right
            elif isinstance(node.operator, cst.Power) and _bad_exponent(node.right):
                yield node, node.left
        stack.extend(children(node))


def _risky_through_names(model, func, branch: cst.BaseExpression):
    """`_risky` of the branch, and of the value of a branch name bound once earlier in the
    same function: `y = jnp.sqrt(x)` ... `jnp.where(x > 0, y, 0.)` is the same NaN."""
    yield from _risky(model, branch)
    # A name anywhere in the branch (`eps * inv ** 12` with `inv = 1.0 / r` earlier): the
    # cotangent 0 reaches `inv`'s own operation all the same, and on through the names
    # that value is made of (`t48 = t46 ** (1 / 3)`, `t49 = t48 ** 2`, then the branch
    # `t49`): each link multiplies the 0 on, and the root's inf makes it NaN.
    seen = set()
    frontier = [branch]
    for _ in range(_NAME_DEPTH):
        names = [n for expr in frontier for n in
                 ([expr] if isinstance(expr, cst.Name) else _walk_expr(expr)) if isinstance(n, cst.Name)]
        frontier = []
        for name in names:
            if name.value in seen:
                continue
            seen.add(name.value)
            values = model.assigned_values(name)
            if values is None or len(values) != 1 or model.function_of(values[0]) is not func:
                continue
            if isinstance(values[0], cst.Call) and model.qualname(values[0].func) in _NO_COTANGENT:
                continue  # no gradient flows back through it
            yield from _risky(model, values[0])
            frontier.append(values[0])


#: How many assignments back a branch's names are followed.
_NAME_DEPTH = 4
#: Calls through which no cotangent flows back to their argument.
_NO_COTANGENT = frozenset({"jax.lax.stop_gradient"})


def _held_value(model, func, arg: cst.BaseExpression) -> cst.BaseExpression:
    """The expression a risky argument stands for when it is a name bound once in the same
    function to plain arithmetic (`excess = jnp.exp(lw) - jnp.exp(cut)`, then
    `jnp.where(lw > cut, jnp.log(excess), 0.0)`): the condition tests what the name is made
    of. A value with a risky operation of its own is reported at that operation instead."""
    if not isinstance(arg, cst.Name):
        return arg
    values = model.assigned_values(arg)
    if values is None or len(values) != 1 or model.function_of(values[0]) is not func:
        return arg
    if next(_risky(model, values[0]), None) is not None:
        return arg
    return values[0]


def _walk_expr(expr: cst.CSTNode):
    """The nodes of an expression, not entering nested functions, and not the attribute
    names of `a.b` (only `a`)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        yield node
        if isinstance(node, cst.Attribute):
            stack.append(node.value)
            continue
        if isinstance(node, cst.Call):
            stack.extend(a.value for a in node.args)
            continue
        stack.extend(children(node))


def _is_safe(model, expr: cst.BaseExpression, guarded: set[str]) -> bool:
    """Kept in range: a where / maximum / clip, or `x + eps` (an offset not in the condition)."""
    if isinstance(expr, cst.Call):
        return model.qualname(expr.func) in NAN_GRADIENT_SAFE_WRAPPERS
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
        for side in (expr.left, expr.right):
            if _number(side) is not None:
                return True
            if isinstance(side, cst.Name) and side.value not in guarded:
                return True
    return False


def _safe_names(model, func_node: cst.CSTNode, where: cst.Call) -> set[str]:
    """Names whose last binding before `where` (in statement order) is a safe expression
    (`safe = jnp.where(c, x, 1.0)`). A name made safe only after the where
    (`lw = jnp.where(tail, smoothed, lw)` below it) is not safe where the where reads it."""
    before = model.order.get(where, 0)
    last: dict[str, tuple[int, bool]] = {}
    stack = children(func_node)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and node.value is not None:
            order = model.order.get(node, 0)
            if order < before:
                value = node.value
                targets = ([t.target for t in node.targets] if isinstance(node, cst.Assign)
                           else [node.target])
                ok = isinstance(node, (cst.Assign, cst.AnnAssign)) and (
                    isinstance(value, cst.Call) or isinstance(value, cst.BinaryOperation)) and _looks_safe(value)
                for t in targets:
                    for name in _names(t) if not isinstance(t, cst.Name) else {t.value}:
                        if name not in last or last[name][0] < order:
                            last[name] = (order, ok and isinstance(t, cst.Name))
        stack.extend(children(node))
    return {name for name, (_, ok) in last.items() if ok}


def _looks_safe(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.Call):
        func = value.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if name == "max":
            # `max(x, eps)` clamps; `jnp.max(x)` / `x.max()` is a reduction, 0 when x is
            # all 0, unless it starts from `initial=`.
            positional = [a for a in value.args if a.keyword is None]
            return (isinstance(func, cst.Name) and len(positional) >= 2
                    or any(a.keyword is not None and a.keyword.value == "initial" for a in value.args))
        return name in {"where", "maximum", "clip", "clamp"}
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Subtract):
        # `x - eps` shifts; `1 - zeta` is no offset: it is 0 exactly where zeta is 1.
        return _number(value.right) is not None
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
        return _number(value.left) is not None or _number(value.right) is not None
    return False
