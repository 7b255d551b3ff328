"""Python integers the code states outright: literals, arithmetic on them, and
names bound once to one (`N_STEPS = 1000` at module level), and parameters that
every call in the file leaves at a constant default or gives one constant.

Anything else (a parameter, a name bound twice, a call) is not a constant: the
rules that read these stay silent on it.
"""

from __future__ import annotations

import operator
from typing import Optional

import libcst as cst

from jaxlint.engine.scopes import BindingKind
from jaxlint.engine.values import Shape
from jaxlint.jax_api import CONSTANT_ARRAYS, KNOWN_INT_CONSTANTS, STRUCTURE_OF_SECOND_ARGUMENT

_BINARY = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod, cst.LeftShift: operator.lshift,
}
# Big enough for any real loop count or index; keeps `2 ** 10 ** 9` from running.
_LIMIT = 1 << 64


def int_constant(model, expr: cst.BaseExpression, _depth: int = 0,
                 env: Optional[dict[str, int]] = None, stdlib: bool = False) -> Optional[int]:
    """The int `expr` always evaluates to, or None when it is not stated in the code.
    `env`: values for parameters of the function `expr` is in (one call site's);
    `stdlib`: read the standard library's constants too (`sys.maxsize`), which are
    values but rarely sizes (`x[:sys.maxsize]` means "to the end")."""
    if _depth > 20:
        return None
    if isinstance(expr, cst.Integer):
        return int(expr.value.replace("_", ""), 0)
    if stdlib and isinstance(expr, (cst.Name, cst.Attribute)) and model.qualname(expr) in KNOWN_INT_CONSTANTS:
        return KNOWN_INT_CONSTANTS[model.qualname(expr)]
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        inner = int_constant(model, expr.expression, _depth + 1, env, stdlib)
        if inner is None:
            return None
        return -inner if isinstance(expr.operator, cst.Minus) else inner
    if isinstance(expr, cst.BinaryOperation):
        left = int_constant(model, expr.left, _depth + 1, env, stdlib)
        right = int_constant(model, expr.right, _depth + 1, env, stdlib)
        if left is None or right is None:
            return None
        if isinstance(expr.operator, cst.Power):
            if right < 0 or right > 64 or abs(left) > _LIMIT:
                return None
            return left ** right
        op = _BINARY.get(type(expr.operator))
        if op is None or (op in (operator.floordiv, operator.mod) and right == 0) \
                or (op is operator.lshift and not 0 <= right <= 64):
            return None
        value = op(left, right)
        return value if abs(value) <= _LIMIT else None
    if isinstance(expr, cst.Name):
        if env and expr.value in env and _is_parameter(model, expr):
            return env[expr.value]
        value = _bound_once(model, expr, _depth)
        return value if value is not None else _parameter_value(model, expr, _depth)
    return None


def int_values_at_call_sites(model, expr: cst.BaseExpression) -> list[tuple[int, cst.Call]]:
    """The int `expr` evaluates to at each call site of its function that states the
    parameters it reads (`n - 1` in `def __init__(self, n)`, `Discrete(sys.maxsize)`:
    2**63 - 2 there), with the call. Sites that leave one unstated are skipped."""
    from jaxlint.engine.callees import argument_for, call_sites

    func = model.function_of(expr)
    if func is None:
        return []
    params = {n.value for n in _names(expr) if _is_parameter(model, n)}
    if not params:
        return []
    out = []
    for call, shift in call_sites(model, func):
        env = {}
        for p in params:
            arg = argument_for(call, func, p, shift)
            arg = arg if arg is not None else func.defaults.get(p)
            value = int_constant(model, arg, stdlib=True) if arg is not None else None
            if value is None:
                break
            env[p] = value
        else:
            value = int_constant(model, expr, env=env, stdlib=True)
            if value is not None:
                out.append((value, call))
    return out


def tuple_length(model, expr: cst.BaseExpression, _depth: int = 0) -> Optional[tuple[int, Optional[cst.Call]]]:
    """The length of the tuple or list `expr` is, with the call site that makes it so
    (None: stated where it is read): a literal without `*`, a name bound once to one, a
    parameter one call site passes one to, `tree_map(f, tree)` of one (the result has
    the tree's structure)."""
    from jaxlint.engine.callees import passed_arguments

    if _depth > 8:
        return None
    if isinstance(expr, (cst.Tuple, cst.List)):
        if any(isinstance(el, cst.StarredElement) for el in expr.elements):
            return None
        return len(expr.elements), None
    if isinstance(expr, cst.Call) and model.qualname(expr.func) in STRUCTURE_OF_SECOND_ARGUMENT:
        pos = [a.value for a in expr.args if a.keyword is None and not a.star]
        return tuple_length(model, pos[1], _depth + 1) if len(pos) >= 2 and len(pos) == len(expr.args) else None
    if not isinstance(expr, cst.Name):
        return None
    if _is_parameter(model, expr):
        for site, arg in passed_arguments(model, expr) or ():
            found = tuple_length(model, arg, _depth + 1)
            if found is not None:
                return found[0], found[1] or site
        return None
    values = model.assigned_values(expr)
    if values is None or len(values) != 1:
        return None
    return tuple_length(model, values[0], _depth + 1)


def _is_parameter(model, name: cst.Name) -> bool:
    bindings = model.scope_of(name).lookup(name.value)
    return bool(bindings) and len(bindings) == 1 and bindings[0].kind == BindingKind.PARAM


def _names(expr: cst.CSTNode) -> list[cst.Name]:
    out, stack = [], [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.append(node)
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        elif isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)):
            stack.extend(node.children)
    return out


def _bound_once(model, name: cst.Name, depth: int) -> Optional[int]:
    """A module-level name assigned exactly once, to a constant int (`N = 1000`)."""
    scope = model.scope_of(name)
    bindings = scope.lookup(name.value)
    if not bindings or len(bindings) != 1 or scope.module.bindings.get(name.value) is not bindings:
        return None
    binding = bindings[0]
    node = binding.node
    if binding.kind != BindingKind.ASSIGN or not isinstance(node, cst.Assign) \
            or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
        return None
    return int_constant(model, node.value, depth + 1)


def _parameter_value(model, name: cst.Name, depth: int) -> Optional[int]:
    """A parameter of a function that this file only calls by name, when every call
    leaves it at its constant default or passes the same constant (`nbody(state)` for
    `def nbody(state, steps=120)`): the value the function runs with here."""
    scope = model.scope_of(name)
    bindings = scope.lookup(name.value)
    if not bindings or len(bindings) != 1 or bindings[0].kind != BindingKind.PARAM:
        return None
    func = next((f for f in model.functions if f.scope is scope), None)
    if func is None or func.is_lambda or func.is_method or name.value in (func.vararg, func.kwarg):
        return None
    # Its rebinding to its own jitted self (`f = jax.jit(f, static_argnums=1)`) is the
    # same function.
    calls = called_only_by_name(model, func, _rebinds(model, func))
    if calls is None:
        return None
    p = name.value
    index = func.positional.index(p) if p in func.positional else None
    values = set()
    for call in calls:
        positional = [a.value for a in call.args if a.keyword is None]
        given = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == p), None)
        if given is None and index is not None and index < len(positional):
            given = positional[index]
        if given is None:
            given = func.defaults.get(p)
        value = int_constant(model, given, depth + 1) if given is not None else None
        if value is None:
            return None
        values.add(value)
    return values.pop() if len(values) == 1 else None


def called_only_by_name(model, func, rebinds: frozenset = frozenset()) -> Optional[list[cst.Call]]:
    """The calls `func(...)` of this file, where every other mention of the function is
    one of them (never passed on as a value or wrapped, where it could be called unseen),
    or a name in `rebinds` (`_rebinds`), and no call passes a star; else None."""
    calls = model.calls_named(func.name)
    mentions = [n for n in model.names_spelled(func.name) if n is not func.node.name and n not in rebinds]
    if not calls or len(mentions) != len(calls) \
            or any(model.resolve_function(c.func) is not func and not _runs_rebound(model, c, rebinds)
                   for c in calls) \
            or any(a.star for c in calls for a in c.args):
        return None
    return calls


def _rebinds(model, func) -> set:
    """The names of every module-level `f = jax.jit(f, ...)` that rebinds the def `f` to a
    transform of itself (the target and the wrapped name): the same function, called
    through the wrapper."""
    from jaxlint.engine.tracing import transform_for, wrapped_target

    out = set()
    for b in model.module_scope.bindings.get(func.name, ()):
        node = b.node
        if b.kind != BindingKind.ASSIGN or not isinstance(node, cst.Assign) or len(node.targets) != 1 \
                or not isinstance(node.value, cst.Call):
            continue
        wrapped = wrapped_target(node.value)
        if transform_for(model, model.qualname(node.value.func)) is not None \
                and isinstance(wrapped, cst.Name) and model.resolve_function(wrapped) is func:
            out |= {node.targets[0].target, wrapped}
    return out


def _runs_rebound(model, call: cst.Call, rebinds: set) -> bool:
    binding = model.binding_in_effect(call.func) if isinstance(call.func, cst.Name) else None
    return binding is not None and isinstance(binding.node, cst.Assign) \
        and binding.node.targets[0].target in rebinds


# ---------------------------------------------------------------- values through call sites
# `in_axes = (0,) * self.n_states + (None,) * len(args) + (0,)` and `f(*ys, *args)`: how many
# items each has where the code states it, through the names, attributes and parameters
# that carry it there. Each answer holds at every call, or there is none.

def stated_int(model, expr: cst.BaseExpression, depth: int = 0) -> Optional[int]:
    """The int `expr` is wherever it runs: a constant (`int_constant`), `len(x)` of a
    sequence of stated length, an attribute every write of which states the same int
    (`self.n = n` with every `Cls(n=1)` passing 1), or a parameter every call passes the
    same int (or leaves at an int default)."""
    if depth > 10:
        return None
    value = int_constant(model, expr)
    if value is not None:
        return value
    if isinstance(expr, cst.Call) and model.qualname(expr.func) == "builtins.len" \
            and len(expr.args) == 1 and not expr.args[0].star and expr.args[0].keyword is None:
        return stated_length(model, expr.args[0].value, depth + 1)
    if isinstance(expr, cst.BinaryOperation):
        left, right = stated_int(model, expr.left, depth + 1), stated_int(model, expr.right, depth + 1)
        op = _BINARY.get(type(expr.operator))
        if left is None or right is None or op not in (operator.add, operator.sub, operator.mul):
            return None
        return op(left, right)
    return _agreed_value(model, expr, depth, stated_int)


def stated_length(model, expr: cst.BaseExpression, depth: int = 0) -> Optional[int]:
    """How many items the tuple or list `expr` holds wherever it runs: a literal (its
    starred parts of stated length too), `a + b` and `a * n` of such, a comprehension with
    no condition over one, a name bound once to one, an attribute every write of which
    states it, or a parameter every call passes one of the same length."""
    if depth > 10:
        return None
    if isinstance(expr, (cst.Tuple, cst.List)):
        total = 0
        for el in expr.elements:
            if isinstance(el, cst.StarredElement):
                inner = stated_length(model, el.value, depth + 1)
                if inner is None:
                    return None
                total += inner
            else:
                total += 1
        return total
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.Add):
            left, right = stated_length(model, expr.left, depth + 1), stated_length(model, expr.right, depth + 1)
            return left + right if left is not None and right is not None else None
        if isinstance(expr.operator, cst.Multiply):
            for seq, times in ((expr.left, expr.right), (expr.right, expr.left)):
                if isinstance(seq, (cst.Tuple, cst.List, cst.Name, cst.Attribute)):
                    n, k = stated_length(model, seq, depth + 1), stated_int(model, times, depth + 1)
                    if n is not None and k is not None:
                        return n * max(k, 0)
        return None
    if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
        comp = expr.for_in
        if comp.ifs or comp.inner_for_in is not None:
            return None
        return stated_length(model, comp.iter, depth + 1)
    if isinstance(expr, cst.Call) and model.qualname(expr.func) in ("builtins.tuple", "builtins.list") \
            and len(expr.args) == 1 and not expr.args[0].star and expr.args[0].keyword is None:
        return stated_length(model, expr.args[0].value, depth + 1)
    if isinstance(expr, cst.Subscript):
        return _sliced_length(model, expr, depth)
    if _resized(model, expr):
        return None  # `ys.append(y)` somewhere: the length it was made with is not the one read
    vararg = _vararg_length(model, expr)
    if vararg is not None:
        return vararg
    return _agreed_value(model, expr, depth, stated_length)


def _sliced_length(model, expr: cst.Subscript, depth: int) -> Optional[int]:
    """`xs[a:b]` with constant bounds (and no step) of a sequence of stated length: the
    length Python's slicing gives (`args[:1]` of two items holds one, `args[1:]` one)."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Slice):
        return None
    part = expr.slice[0].slice
    if part.step is not None:
        return None
    bounds = []
    for bound in (part.lower, part.upper):
        if bound is None:
            bounds.append(None)
            continue
        value = int_constant(model, bound)
        if value is None:
            return None
        bounds.append(value)
    n = stated_length(model, expr.value, depth + 1)
    return len(range(n)[slice(*bounds)]) if n is not None else None


def _vararg_length(model, expr: cst.BaseExpression) -> Optional[int]:
    """The star parameter `args` of `def f(a, *args)`: how many positional arguments each
    call of this file passes beyond the named ones, where every call states the same count
    (none passes a star of its own) and the body never rebinds it."""
    from jaxlint.engine.callees import call_sites

    if not isinstance(expr, cst.Name) or model.comprehension_variable(expr):
        return None
    func = model.function_of(expr)
    while func is not None and expr.value not in func.scope.bindings:
        func = func.enclosing
    if func is None or func.is_lambda or expr.value != func.vararg \
            or len(func.scope.bindings.get(expr.value, ())) != 1:
        return None
    sites = call_sites(model, func)
    if not sites:
        return None
    found = []
    for call, shift in sites:
        if any(a.star for a in call.args):
            return None
        positional = sum(1 for a in call.args if a.keyword is None)
        found.append(max(positional + shift - len(func.positional), 0))
    return _agree(found)


#: List methods that change its length.
_RESIZING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear"})


def _resized(model, expr: cst.BaseExpression) -> bool:
    """Whether the file changes the length of what `expr` names in place: `xs.append(...)`
    on the same name (of the same scope), or on the same attribute of any object, or
    `del xs[i]`."""
    if isinstance(expr, cst.Name):
        bindings = model.scope_of(expr).lookup(expr.value)

        def same(node) -> bool:
            return isinstance(node, cst.Name) and node.value == expr.value \
                and model.scope_of(node).lookup(node.value) == bindings
    elif isinstance(expr, cst.Attribute):
        def same(node) -> bool:
            return isinstance(node, cst.Attribute) and node.attr.value == expr.attr.value
    else:
        return False
    for call in model.nodes(cst.Call):
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _RESIZING_METHODS \
                and same(call.func.value):
            return True
    for node in model.nodes(cst.Del):
        stack = [node.target]
        while stack:
            cur = stack.pop()
            if isinstance(cur, (cst.Tuple, cst.List)):
                stack.extend(el.value for el in cur.elements)
            elif isinstance(cur, cst.Subscript) and same(cur.value):
                return True
    return False


def _agreed_value(model, expr: cst.BaseExpression, depth: int, read) -> Optional[int]:
    """`read` of what a name, attribute or parameter holds, where every source agrees."""
    from jaxlint.engine.callees import argument_for, call_sites

    if isinstance(expr, cst.Attribute):
        values = model.attribute_assignments(expr)
        return _agree([read(model, v, depth + 1) for v in values]) if values else None
    if not isinstance(expr, cst.Name) or model.comprehension_variable(expr):
        return None
    if _is_parameter(model, expr):
        func = model.function_of(expr)
        while func is not None and expr.value not in func.scope.bindings:
            func = func.enclosing
        if func is None or func.is_lambda or expr.value in (func.vararg, func.kwarg):
            return None
        sites = call_sites(model, func)
        if not sites or any(a.star for call, _ in sites for a in call.args):
            return None
        found = []
        for call, shift in sites:
            arg = argument_for(call, func, expr.value, shift)
            arg = arg if arg is not None else func.defaults.get(expr.value)
            found.append(read(model, arg, depth + 1) if arg is not None else None)
        return _agree(found)
    values = model.assigned_values(expr)
    if values is None or len(values) != 1:
        return None
    return read(model, values[0], depth + 1)


def _agree(found: list) -> Optional[int]:
    return found[0] if found and found[0] is not None and all(f == found[0] for f in found) else None


def python_number(model, expr: cst.BaseExpression) -> bool:
    """A Python number: a literal (`0`, `-1e-6`) or a name holding one."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    value = model.value(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
    return value is not None and value.static and value.shape is Shape.SCALAR


def fixed_fill(model, expr: cst.BaseExpression) -> bool:
    """A value that no numbers decide: a Python number, or an array of one such number
    (`jnp.ones_like(row_sums)`, `jnp.full(shape, 0.5)`), whose shape and dtype say all
    it holds."""
    if python_number(model, expr):
        return True
    if not isinstance(expr, cst.Call) or model.qualname(expr.func) not in CONSTANT_ARRAYS:
        return False
    at = CONSTANT_ARRAYS[model.qualname(expr.func)]
    if at is None:
        return True
    fill = [a.value for a in expr.args if a.keyword is not None and a.keyword.value == "fill_value"]
    fill += [a.value for i, a in enumerate(expr.args) if a.keyword is None and i == at]
    return len(fill) == 1 and python_number(model, fill[0])


def zero_everywhere(model, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """`expr` is the number 0 on every run the file shows: a literal `0` / `0.0`, a name
    bound once to one (`particle_noise = 0.0`), or a parameter of a function of this file
    that is only ever called by name, where every call passes such a zero (or leaves it
    to a default of 0). Silent (False) whenever a call, a binding or a mention is unknown."""
    from jaxlint.engine.callees import _function_with_param, argument_for

    if depth > 6:
        return False
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    if isinstance(expr, (cst.Integer, cst.Float)):
        try:
            return float(expr.evaluated_value) == 0.0
        except (TypeError, ValueError):
            return False
    if not isinstance(expr, cst.Name):
        return False
    bindings = model.scope_of(expr).lookup(expr.value)
    if not bindings or len(bindings) != 1:
        return False
    binding = bindings[0]
    if binding.kind == BindingKind.ASSIGN:
        node = binding.node
        return isinstance(node, cst.Assign) and len(node.targets) == 1 \
            and isinstance(node.targets[0].target, cst.Name) and zero_everywhere(model, node.value, depth + 1)
    if binding.kind != BindingKind.PARAM:
        return False
    func = _function_with_param(model, expr)
    if func is None or func.is_lambda or func.is_method or func.klass is not None \
            or expr.value in (func.vararg, func.kwarg):
        return False
    calls = called_only_by_name(model, func)
    if calls is None:
        return False
    for call in calls:
        arg = argument_for(call, func, expr.value, 0)
        arg = arg if arg is not None else func.defaults.get(expr.value)
        if arg is None or not zero_everywhere(model, arg, depth + 1):
            return False
    return True
