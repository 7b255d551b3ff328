"""What the recompilation rules (JAX4xx) share: loops, jitted callees, fresh callables.

JAX caches a compiled function on the identity of the Python callable, the
shapes and dtypes of its traced arguments, and the values of its static
arguments. Each rule here looks for one way a program defeats that cache, so
they all ask the same questions: is this node run on every loop iteration,
which jitted function of this file does this call reach, and which parameter
does each argument land in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from jaxlint.engine import callees
from jaxlint.engine.callees import applying_call
from jaxlint.engine.model import _decorated_static, children, walk
from jaxlint.engine.scopes import target_names

from jaxlint.engine.functions import FunctionInfo, TraceContext
from jaxlint.engine.tracing import transform_for
from jaxlint.engine.values import Shape
from jaxlint.jax_api import COMPILED_LOOPS, DISPATCHING_TRANSFORMS, Transform

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
# Arithmetic that gives a new value for each new operand (`0.5 + i`, `lr * decay`).
_INJECTIVE_OPS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)
# Builtins that keep distinct numbers distinct enough to count (`float(i)`).
_PASSING_BUILTINS = frozenset({"builtins.float", "builtins.int", "builtins.abs"})
# A loop over at most this many literal values compiles a bounded, deliberate set.
_FEW = 8
# A table of configurations written out in the code: each entry typed by hand.
_LISTED = 32
# Iterables as long as their arguments: `enumerate((1, 2, 4))` has three items.
_ORDER_KEEPING = frozenset({"builtins.enumerate", "builtins.zip", "builtins.reversed"})
# Loops over a container the program holds, as long as a config says: not a step loop.
_CONTAINER_VIEWS = frozenset({"items", "keys", "values"})


# ---------------------------------------------------------------- loops
def repeating_loop(model, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The innermost loop that runs `node` once per iteration, in the same function.

    A `for` loop's iterable and a comprehension's first iterable are evaluated
    once, before the loop starts; they do not count.
    """
    child = node
    for anc in model.ancestors(node):
        if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return None
        if isinstance(anc, cst.For):
            if child is anc.body:
                return anc
        elif isinstance(anc, cst.While):
            if child is anc.body or child is anc.test:
                return anc
        elif isinstance(anc, _COMPREHENSIONS):
            if child is not anc.for_in:
                return anc
        elif isinstance(anc, cst.CompFor):
            # Inner `for` clauses and `if` filters run per element of the outer one.
            if child is not anc.iter:
                comp = _comprehension_of(model, anc)
                if comp is not None:
                    return comp
            elif isinstance(model.parent(anc), cst.CompFor):
                return _comprehension_of(model, anc)
        child = anc
    return None


def _comprehension_of(model, comp_for: cst.CompFor):
    for anc in model.ancestors(comp_for):
        if isinstance(anc, _COMPREHENSIONS):
            return anc
    return None


def loop_body_contains(loop: cst.CSTNode, node: cst.CSTNode, model) -> bool:
    """Whether `node` runs on each iteration of `loop` (nested loops included)."""
    for anc in _ancestors_to(model, node, loop):
        if anc is loop:
            return True
    return False


def _ancestors_to(model, node, stop):
    cur = node
    while cur is not None:
        yield cur
        if cur is stop:
            return
        cur = model.parent(cur)


def varying_names(model, loop: cst.CSTNode) -> set[str]:
    """Names that take a new value on each iteration of `loop`.

    The index of `for i in range(...)` and of `enumerate(...)`, a counter
    updated in the body (`i += 1`, `lr *= 0.9`), and names assigned in the body
    from one of those by arithmetic (`lr = 0.1 * 0.9 ** step`). A loop over a
    literal list (`for n in (1, 2, 4)`) is a deliberate, bounded set of values.
    """
    names: set[str] = set()
    if short_loop(model, loop):
        return names  # a handful of iterations: each name takes a handful of values
    body = loop.body if isinstance(loop, (cst.For, cst.While)) else None
    if isinstance(loop, cst.For):
        names |= _distinct_targets(model, loop.target, loop.iter)
    elif isinstance(loop, _COMPREHENSIONS):
        comp = loop.for_in
        while comp is not None:
            names |= _distinct_targets(model, comp.target, comp.iter)
            comp = comp.inner_for_in
    if body is None:
        return names
    stmts = [n for n in _statements(body)]
    for stmt in stmts:
        if isinstance(stmt, cst.AugAssign) and isinstance(stmt.target, cst.Name) \
                and isinstance(stmt.operator, (cst.AddAssign, cst.SubtractAssign,
                                               cst.MultiplyAssign, cst.DivideAssign)):
            names.add(stmt.target.value)
    # Assignments from varying names, to a fixed point (bodies are short).
    for _ in range(4):
        grew = False
        for stmt in stmts:
            if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0].target, cst.Name):
                name = stmt.targets[0].target.value
                if name not in names and varies(model, stmt.value, names):
                    names.add(name)
                    grew = True
        if not grew:
            break
    return names


def _distinct_targets(model, target, iterable) -> set[str]:
    """Loop targets that are distinct on each iteration: range and enumerate indices."""
    if not isinstance(iterable, cst.Call):
        return set()
    q = model.qualname(iterable.func)
    if q == "builtins.range" and isinstance(target, cst.Name):
        return set() if _few(iterable) else {target.value}
    if q == "builtins.enumerate" and isinstance(target, (cst.Tuple, cst.List)) \
            and target.elements and isinstance(target.elements[0].value, cst.Name):
        return {target.elements[0].value.value}
    return set()


def index_names(model, loop: cst.CSTNode) -> set[str]:
    """Names bound to Python ints by the `for` loops around and including `loop`:
    `i` in `for i in range(n)` and in `for i, x in enumerate(xs)`."""
    names: set[str] = set()
    while loop is not None:
        if isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call):
            q = model.qualname(loop.iter.func)
            target = loop.target
            if q == "builtins.enumerate" and isinstance(target, (cst.Tuple, cst.List)) and target.elements:
                target = target.elements[0].value
            if q in ("builtins.range", "builtins.enumerate") and isinstance(target, cst.Name):
                names.add(target.value)
        loop = repeating_loop(model, loop)
    return names


def short_loop(model, loop: cst.CSTNode) -> bool:
    """A loop over a handful of values stated in the code: `range(3)`, `(1, 2, 4)`,
    `enumerate([a, b])`. Whatever it compiles per iteration, it compiles a bounded,
    deliberate set of times, then the cache is warm."""
    if isinstance(loop, cst.For):
        iterable = loop.iter
    elif isinstance(loop, _COMPREHENSIONS):
        iterable = loop.for_in.iter
    else:
        return False  # a `while` runs until its condition says so
    if isinstance(iterable, cst.Call) and model.qualname(iterable.func) in _ORDER_KEEPING \
            and iterable.args and all(a.keyword is None and not a.star for a in iterable.args):
        return all(_few_values(model, a.value) for a in iterable.args)
    return _few_values(model, iterable)


def _few_values(model, iterable: cst.BaseExpression) -> bool:
    """A literal of a handful of items, a name bound only to one (`sizes = [8, 16]`),
    or a short `range`, also `range(len(sizes))`."""
    if isinstance(iterable, cst.Name):
        values = model.assigned_values(iterable)
        return bool(values) and all(isinstance(v, (cst.Tuple, cst.List, cst.Set))
                                    and _few_values(model, v) for v in values)
    if isinstance(iterable, (cst.Tuple, cst.List, cst.Set)):
        return len(iterable.elements) <= _FEW and not any(
            isinstance(e, cst.StarredElement) for e in iterable.elements)
    if not (isinstance(iterable, cst.Call) and model.qualname(iterable.func) == "builtins.range"):
        return False
    args = iterable.args
    if len(args) == 1 and isinstance(args[0].value, cst.Call) and args[0].keyword is None \
            and model.qualname(args[0].value.func) == "builtins.len" and len(args[0].value.args) == 1:
        return _few_values(model, args[0].value.args[0].value)
    return _few(iterable)


def over_listed_values(model, loop: cst.CSTNode) -> bool:
    """A loop over values written out in the code: `for fused in (False, True)`,
    `for dtype in dtypes` with `dtypes = [f16, f32]`, `for name in SETTINGS` with
    `SETTINGS = {...}` of a few configurations, `zip(solvers, axes)` with a listed
    `solvers`. Each value is one deliberate compile. A short `range(4)` does not count:
    it often stands for a step loop, shortened."""
    if isinstance(loop, cst.For):
        iterable = loop.iter
    elif isinstance(loop, _COMPREHENSIONS):
        iterable = loop.for_in.iter
    else:
        return False
    return _listed(model, iterable)


def _listed(model, iterable, depth: int = 0) -> bool:
    if isinstance(iterable, cst.Call):
        q = model.qualname(iterable.func)
        args = [a.value for a in iterable.args if a.keyword is None and not a.star]
        if q not in _ORDER_KEEPING or not args or len(args) != len(iterable.args):
            return False  # `range(...)`, or a call that makes its own sequence
        if q == "builtins.zip":
            return any(_listed(model, a, depth) for a in args)  # as long as the shortest
        return _listed(model, args[0], depth)
    if isinstance(iterable, (cst.Tuple, cst.List, cst.Set, cst.Dict)):
        return len(iterable.elements) <= _LISTED and not any(
            isinstance(e, (cst.StarredElement, cst.StarredDictElement)) for e in iterable.elements)
    if isinstance(iterable, cst.Name) and depth == 0 and not model.comprehension_variable(iterable):
        bindings = model.scope_of(iterable).lookup(iterable.value)
        values = []
        for b in bindings or ():
            node = b.node
            if isinstance(node, cst.Assign) and len(node.targets) == 1 \
                    or isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
                values.append(node.value)
            else:
                return False
        return bool(values) and all(_listed(model, v, depth + 1) for v in values)
    return False


def makes_up_a_shortfall(model, loop: cst.CSTNode) -> bool:
    """`while count < n:` whose body draws `n` random candidates at once (`split(key, n)`,
    `normal(key, (n, d))`): each pass makes as many as the whole loop needs, so it
    repeats only to make up what a pass rejected (rejection sampling), a pass or two."""
    if not isinstance(loop, cst.While):
        return False
    test = loop.test
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, (cst.LessThan, cst.LessThanEqual))):
        return False
    bound = test.comparisons[0].comparator
    if not isinstance(bound, cst.Name) or not isinstance(test.left, (cst.Name, cst.Attribute, cst.Call)):
        return False
    for small in _statements(loop.body):
        for node in walk(small):
            if isinstance(node, cst.Call) and (model.qualname(node.func) or "").startswith("jax.random.") \
                    and any(isinstance(n, cst.Name) and n.value == bound.value
                            for a in node.args[1:] for n in walk(a.value)):
                return True  # `split(key, n)`, `normal(key, (n, d))`: n random candidates
    return False


def checks_each_case(model, loop: cst.CSTNode) -> bool:
    """A `for` loop over test cases: each pass checks its item (`assert`, an
    `assert...` call) and keeps nothing for a later pass or for after the loop (no
    name bound before the loop is rebound, nothing is appended). It compiles once
    per case, which is what a test of that many cases costs, not a step loop."""
    if not isinstance(loop, cst.For):
        return False
    scope = model.scope_of(loop)
    checks = False
    for small in _statements(loop.body):
        if isinstance(small, cst.Assert) or isinstance(small, cst.Expr) and _is_check_call(small.value):
            checks = True
        targets = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
            targets = [small.target]
        for target in targets:
            if not isinstance(target, (cst.Name, cst.Tuple, cst.List)):
                return False  # a store into an object or container that outlives the pass
            for name in (n.value for n in target_names(target)):
                bindings = scope.lookup(name) or []
                if any(b.order < model.order[loop] for b in bindings):
                    return False  # carried: the pass updates a value the next one reads
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) \
                and isinstance(small.value.func, cst.Attribute) \
                and small.value.func.attr.value in ("append", "extend", "add", "update", "insert"):
            return False
    return checks


def _is_check_call(expr: cst.BaseExpression) -> bool:
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return isinstance(name, str) and name.lower().startswith("assert")


def repeats_over_steps(model, node: cst.CSTNode) -> bool:
    """Whether some loop around `node` in its function is not over listed values."""
    loop = repeating_loop(model, node)
    while loop is not None:
        if not over_listed_values(model, loop):
            return True
        loop = repeating_loop(model, loop)
    return False


def repeats_many_times(model, node: cst.CSTNode) -> bool:
    """Whether some loop around `node` in its function has more than a handful of iterations."""
    loop = repeating_loop(model, node)
    while loop is not None:
        if not short_loop(model, loop):
            return True
        loop = repeating_loop(model, loop)
    return False


def once_per_pass(model, node: cst.CSTNode, repeated: set) -> bool:
    """Whether `node` repeats only once per pass of a longer loop of other work.

    `for epoch in ...: for batch in data: ...` then a fresh `jax.pmap(lambda ...)` beside
    the step loop, or a function that loops over a data set and then wraps one (called
    once per evaluation): one compile per pass, small against the pass, and the epochs
    or evaluations are few. `repeated`: the functions called on every iteration of some
    loop (`repeated_functions`).
    """
    return _once_per_pass(model, node, repeated, set())


def _once_per_pass(model, node, repeated, seen) -> bool:
    loop = repeating_loop(model, node)
    if loop is not None:
        # A loop that takes a batch each pass (`next(dataset)`) is itself a step loop.
        return isinstance(loop, (cst.For, cst.While)) and _runs_step_loop(model, loop.body, node) \
            and not _takes_a_batch(model, loop.body)
    owner = model.function_of(node)
    if owner is None or owner in seen or isinstance(owner.node, cst.Lambda):
        return False
    seen.add(owner)
    if _runs_step_loop(model, owner.node.body, node):
        return True
    # Not itself beside a step loop: then every call that repeats it must be.
    calls = [c for c in calls_by_callee(model).get(owner, ())
             if repeats_over_steps(model, c) or model.function_of(c) in repeated]
    return bool(calls) and all(_once_per_pass(model, c, repeated, seen) for c in calls)


def _runs_step_loop(model, region: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Whether `region` (a loop or function body) runs a step loop that `node` is not in."""
    stack = [region]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(cur, (cst.For, cst.While)) and not loop_body_contains(cur, node, model) \
                and _step_loop(model, cur):
            return True
        stack.extend(children(cur))
    return False


def beside_compiled_loop(model, node: cst.CSTNode, loop: Optional[cst.CSTNode]) -> bool:
    """Whether each pass that runs `node` also runs a jitted function of this file whose
    body is a `lax.scan` / `fori_loop` / `while_loop` (a chunk of training steps under
    `jax.pmap`): a pass is then that compiled loop's work, and a small compile beside it
    is noise. The pass is the step loop around `node`, or else its function's call."""
    if loop is not None and _step_loop(model, loop):
        region = loop.body
    else:
        owner = model.function_of(node)
        if owner is None or isinstance(owner.node, cst.Lambda):
            return False
        region = owner.node.body
    stack = [region]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(cur, cst.Call) and cur is not node:
            callee = jitted_callee(model, cur)
            if callee is not None and _runs_lax_loop(model, callee.function.node):
                return True
        stack.extend(children(cur))
    return False


def _runs_lax_loop(model, function: cst.CSTNode) -> bool:
    for cur in walk(function):
        if isinstance(cur, cst.Call) and model.qualname(cur.func) in COMPILED_LOOPS:
            return True
    return False


def _takes_a_batch(model, region: cst.CSTNode) -> bool:
    """Whether `region` calls `next(...)` itself, outside its nested loops and functions."""
    stack = [region]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.For, cst.While)):
            continue
        if isinstance(cur, cst.Call) and model.qualname(cur.func) == "builtins.next":
            return True
        stack.extend(children(cur))
    return False


def _step_loop(model, loop) -> bool:
    """A loop over data or steps: over an iterator some call makes (`ds.as_numpy_iterator()`,
    `prefetch(ds)`), or a `while` or long `range` whose body does a step's work (takes a
    batch, calls JAX or a jitted function, or a step function passed in). Not a loop over
    a Python container of the program (`for k, v in metrics.items()`, `for c in carry`,
    `for d in jax.devices()`), nor one that only reads files or builds lists."""
    if isinstance(loop, cst.For):
        if short_loop(model, loop) or over_listed_values(model, loop):
            return False
        it = loop.iter
        if isinstance(it, cst.Call) and model.qualname(it.func) not in ("builtins.range", *_ORDER_KEEPING) \
                and _step_iterable(model, it):
            return True
        if not (isinstance(it, cst.Call) and model.qualname(it.func) == "builtins.range") \
                and not _step_iterable(model, it):
            return False
    return _does_step_work(model, loop.body)


def _does_step_work(model, body: cst.CSTNode) -> bool:
    stack = [body]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(cur, cst.Call):
            q = model.qualname(cur.func) or ""
            if q == "builtins.next" or q.startswith("jax.") or jitted_callee(model, cur) is not None:
                return True
            if isinstance(cur.func, cst.Name):
                bindings = model.scope_of(cur.func).lookup(cur.func.value)
                if bindings and all(b.kind == "param" for b in bindings):
                    return True  # `eval_step_fn(state, batch)`: a step function passed in
        stack.extend(children(cur))
    return False


def _step_iterable(model, it: cst.BaseExpression) -> bool:
    if isinstance(it, cst.Name):
        values = model.assigned_values(it)
        return bool(values) and all(isinstance(v, cst.Call) and _step_iterable(model, v) for v in values)
    if not isinstance(it, cst.Call):
        return False
    q = model.qualname(it.func)
    if q in _ORDER_KEEPING:
        return any(a.keyword is None and not a.star and _step_iterable(model, a.value) for a in it.args)
    if q == "builtins.range":
        return not _few(it)
    if q is not None and q.startswith(("builtins.", "jax.", "numpy.")):
        # `sorted(...)`, `jax.devices()`, `np.random.choice(n, 8)`: a container, not a data stream
        return False
    return not (isinstance(it.func, cst.Attribute) and it.func.attr.value in _CONTAINER_VIEWS)


def _few(range_call: cst.Call) -> bool:
    """`range(3)`, `range(1, 5)`: a handful of values, compiled once each and then reused."""
    bounds = []
    for arg in range_call.args:
        if arg.keyword is not None or not isinstance(arg.value, cst.Integer):
            return False
        bounds.append(int(arg.value.value, 0))
    if len(bounds) == 1:
        return bounds[0] <= _FEW
    return len(bounds) == 2 and bounds[1] - bounds[0] <= _FEW


def _statements(body) -> Iterator[cst.CSTNode]:
    """Small statements of a loop body, through if/with/try but not nested defs."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(node, cst.BaseSmallStatement):
            yield node
            continue
        stack.extend(reversed(children(node)))


def made_each_pass(model, arg: cst.BaseExpression, call: cst.Call,
                   loop: cst.CSTNode) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
    """(expression, loop) for what the argument `arg` of `call` holds, made anew on each
    pass of `loop` or of a loop around it (through short loops in between; a value made
    once per epoch around a long step loop is made once for many calls): `arg` itself,
    evaluated on each pass, and the value of a `name = value` run on each pass before
    the call."""
    if not isinstance(arg, cst.Name):
        return [(arg, loop)]
    return [(arg, loop)] + _assigned_each_pass(model, arg, call, loop)


def _assigned_each_pass(model, arg: cst.Name, call: cst.Call, loop: cst.CSTNode) -> list:
    cur = loop
    while cur is not None:
        found = [(value, cur) for value in assigned_each_run(model, arg, call, cur)]
        if found or not short_loop(model, cur):
            return found
        cur = repeating_loop(model, cur)
    return []


def assigned_each_run(model, arg: cst.Name, call: cst.Call, region: cst.CSTNode) -> list:
    """The values of the `arg = value` statements that run on each pass of `region` (a loop,
    or a function's body on each call), before `call` and with no other binding between."""
    bindings = model.scope_of(arg).lookup(arg.value) or []
    at = model.order.get(call, 0)
    func = region if isinstance(region, cst.FunctionDef) else None
    found = []
    for b in bindings:
        node = b.node
        if isinstance(node, cst.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name) \
                and model.order.get(node, 0) < at \
                and (repeating_loop(model, node) is None and model.function_of(node) is not None
                     and model.function_of(node).node is func if func is not None
                     else repeating_loop(model, node) is region) \
                and _each_pass(model, node, region.body if func is not None else region) \
                and not any(model.order.get(node, 0) < model.order.get(other.node, 0) < at
                            and not any(a is other.node for a in model.ancestors(call))
                            for other in bindings):
            found.append(node.value)
    return found


def jitted_calls_per_run(model) -> Iterator[tuple[cst.Call, FunctionInfo, JittedCallee]]:
    """(call, its function, callee) for each call of a jitted function of this file made
    once per call of a function that a loop calls on every pass (however few passes:
    what the function makes anew for the call, no later call finds in the cache)."""
    repeated = repeated_functions(model, any_loop=True)
    for call in model.nodes(cst.Call):
        owner = model.function_of(call)
        if owner is None or owner not in repeated or repeating_loop(model, call) is not None \
                or inside_traced(model, call):
            continue
        callee = jitted_callee(model, call)
        if callee is not None:
            yield call, owner, callee


def _each_pass(model, stmt: cst.CSTNode, loop: cst.CSTNode) -> bool:
    """Whether `stmt` runs on every pass of `loop` (not under an `if` or `try`)."""
    for anc in _ancestors_to(model, model.parent(stmt), loop):
        if anc is loop:
            return True
        if not isinstance(anc, (cst.SimpleStatementLine, cst.IndentedBlock, cst.With)):
            return False
    return False


def varies(model, expr: cst.BaseExpression, names: set[str]) -> bool:
    """Whether `expr` gives a new value whenever one of `names` does."""
    if isinstance(expr, cst.Name):
        return expr.value in names
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _INJECTIVE_OPS):
        left, right = varies(model, expr.left, names), varies(model, expr.right, names)
        return left != right  # `i - i` or `i * j` may repeat values
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return varies(model, expr.expression, names)
    if isinstance(expr, cst.Call) and len(expr.args) == 1 and expr.args[0].keyword is None:
        if model.qualname(expr.func) in _PASSING_BUILTINS:
            return varies(model, expr.args[0].value, names)
    return False


# ---------------------------------------------------------------- transforms
def compiling_transform(model, call: cst.Call) -> Optional[Transform]:
    """jit or pmap: the transforms that compile and cache on the callable's identity."""
    t = transform_for(model, model.qualname(call.func))
    return t if t is not None and t.cached else None


def wrapped_callable(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The function argument of `jax.jit(f, ...)`."""
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg.value
        if arg.keyword is not None and arg.keyword.value in ("fun", "f"):
            return arg.value
    return None


def inside_traced(model, node: cst.CSTNode) -> bool:
    """Whether `node` runs while some function is being traced (then jit nests, no compile)."""
    func = model.function_of(node)
    while func is not None:
        if func.traced:
            return True
        func = func.enclosing
    return False


# ---------------------------------------------------------------- calls of a jitted function
@dataclass
class JittedCallee:
    """A function of this file reached by a call through jit / pmap."""

    function: FunctionInfo
    context: TraceContext
    # Positional parameters filled before the call's arguments (`self`).
    shift: int
    # How the call names it, for messages.
    label: str
    # `obj.method(...)` of a method whose decorator jits it with `self` among its
    # arguments: the object is the argument bound to `self` (static when marked so).
    receiver: bool = False

    @property
    def static(self) -> frozenset[str]:
        return self.context.static

    def bind(self, call: cst.Call, model=None) -> Iterator[tuple[str, cst.BaseExpression]]:
        """(parameter name, argument) for each argument of the call that can be bound.
        Given the model, a starred argument of stated length (`*args[:1]`) takes its
        places, and the arguments after it are bound where they land."""
        if self.receiver and self.shift == 1 and isinstance(call.func, cst.Attribute) and self.function.positional:
            yield self.function.positional[0], call.func.value
        positional = self.function.positional[self.shift:]
        i = 0
        for arg in call.args:
            if arg.star == "*" and model is not None:
                from jaxlint.engine.constants import stated_length

                n = stated_length(model, arg.value)
                if n is None:
                    return
                i += n
                continue
            if arg.star:
                return
            if arg.keyword is not None:
                yield arg.keyword.value, arg.value
            elif i < len(positional):
                yield positional[i], arg.value
                i += 1


def jitted_calls_in_loops(model) -> list:
    """(call, loop, callee) for each call of a jitted function of this file made once per
    loop iteration, outside traced code."""
    found = model.__dict__.get("_jitted_calls_in_loops")  # JAX403 and JAX405 both ask
    if found is None:
        found = list(_jitted_calls_in_loops(model))
        if "nodes" not in model.__dict__:  # not a rerun around deep code (linter), which sees less
            model._jitted_calls_in_loops = found
    return found


def _jitted_calls_in_loops(model):
    for call in model.nodes(cst.Call):
        callee = jitted_callee(model, call)  # first: asked of every call by JAX404 too, and kept
        if callee is None:
            continue
        loop = repeating_loop(model, call)
        if loop is not None and not inside_traced(model, call):
            yield call, loop, callee


def jitted_callee(model, call: cst.Call) -> Optional[JittedCallee]:
    """The jitted function a call reaches: `jax.jit(f, ...)(...)`, a decorated
    `f(...)`, `self.f(...)`, or `g(...)` with `g = jax.jit(f, ...)`."""
    if "nodes" in model.__dict__:  # a rerun around deep code (linter), which sees less
        return _jitted_callee(model, call)
    if not _has_jitted_function(model):
        return None
    known = model.__dict__.setdefault("_jitted_callees", {})  # JAX404 asks of every call twice
    if call not in known:
        known[call] = _jitted_callee(model, call)
    return known[call]


def _has_jitted_function(model) -> bool:
    """Whether a function of this file has a caching decorator or a jit wrapper: every
    answer of `jitted_callee` is one, and most files have none."""
    found = model.__dict__.get("_has_jitted_function")
    if found is None:
        found = model.__dict__["_has_jitted_function"] = any(
            ctx.via == "wrapper" or _decorator_context(info) is ctx
            for info in model.functions for ctx in info.contexts.values())
    return found


def _jitted_callee(model, call: cst.Call) -> Optional[JittedCallee]:
    func = call.func
    if isinstance(func, cst.Call):
        return _from_wrapper(model, func, model.module.code_for_node(func))
    if isinstance(func, cst.Name):
        info = model.resolve_function(func)
        if info is not None:
            ctx = _decorator_context(info)
            return JittedCallee(info, ctx, 0, func.value) if ctx else None
        values = model.assigned_values(func)  # `step = jax.jit(update, ...)`, bound once
        if values is None:
            # `train_step = jax.jit(train_step, ...)`: the def rebound to its jitted self.
            found = model.binding_in_effect(func)
            values = [found.node.value] if found is not None and found.kind == "assign" else None
        if values is not None and len(values) == 1 and isinstance(values[0], cst.Call):
            return _from_wrapper(model, values[0], func.value) \
                or _from_factory(model, values[0], None, func.value)
        source = unpacked_source(model, func)
        if source is not None:
            return _from_factory(model, source[0], source[1], func.value)
        return _from_parameter(model, func)
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        info = method_of_self(model, func)
        if info is not None:
            ctx = _decorator_context(info)
            if ctx is not None:
                return JittedCallee(info, ctx, 1, model.module.code_for_node(func), receiver=True)
            return None
        # `self.reduce(...)` where `__init__` set `self.reduce = jax.jit(self._reduce, ...)`.
        values = model.attribute_assignments(func)
        if values is not None and len(values) == 1 and isinstance(values[0], cst.Call):
            return _from_wrapper(model, values[0], model.module.code_for_node(func))
        # `s.area(s)` with `s = Shape(...)`: a jitted method reached through an instance.
        info = model.method_of_instance(func)
        if info is None:
            # `u = Updater(...)` just before `u.init(...)` in the same block (a loop body).
            made = model.assigned_just_before(func.value)
            klass = model.resolve_class(made.value.func) if made is not None \
                and isinstance(made.value, cst.Call) else None
            info = model.class_method(klass, func.attr.value) if klass is not None else None
        ctx = _decorator_context(info) if info is not None else None
        if ctx is not None:
            return JittedCallee(info, ctx, 0 if _decorated_static(info) else 1,
                                model.module.code_for_node(func), receiver=True)
    return None


def _from_parameter(model, name: cst.Name) -> Optional[JittedCallee]:
    """`create_fn(...)` where `create_fn` is a parameter that every call of its function in
    this file passes the same jitted function (`get_model(create_model, ...)`): calling the
    parameter calls that function, with its static arguments."""
    from jaxlint.engine.callees import call_sites, passed_arguments

    passed = passed_arguments(model, name)
    if not passed:
        return None
    found = None
    for _call, arg in passed:
        callee = _jitted_expression(model, arg, model.module.code_for_node(arg), 1)
        if callee is None or (found is not None and callee.function is not found.function):
            return None
        found = callee
    owner = model.function_of(name)
    while owner is not None and name.value not in owner.scope.bindings:
        owner = owner.enclosing
    if owner is None or len(call_sites(model, owner)) != len(passed):
        return None  # a call leaves it to a default, or passes it behind a star
    return found


def _from_wrapper(model, wrapper: cst.Call, label: str) -> Optional[JittedCallee]:
    if compiling_transform(model, wrapper) is None:
        return None
    target = wrapped_callable(wrapper)
    if target is None:
        return None
    info = model.resolve_function(target)
    shift = 0
    if info is None and isinstance(target, cst.Attribute):
        # A bound method: `self` is bound, the call's arguments start after it.
        info = model.method_of_self(target) or model.method_of_instance(target)
        shift = 1
    if info is None:
        return None
    ctx = info.contexts.get(wrapper)
    if ctx is None or ctx.via != "wrapper":
        return None
    return JittedCallee(info, ctx, shift, label)


def _from_factory(model, call: cst.Call, position: Optional[int], label: str,
                  depth: int = 0) -> Optional[JittedCallee]:
    """`run = make_run(step)` where `make_run` returns a jitted function it builds (a
    nested `@jax.jit` def, or `jax.jit(inner, ...)`): the call's result is that jitted
    function, made afresh by each call (`position`: the element of a returned tuple)."""
    factory = called_function(model, call) if depth < 3 else None
    if factory is None or factory.klass is not None:
        return None
    found = None
    for expr in model.returned_expressions(factory, position) or ():
        callee = _jitted_expression(model, expr, label, depth)
        if callee is None or (found is not None and callee.function is not found.function):
            return None
        found = callee
    return found


def _jitted_expression(model, expr, label: str, depth: int) -> Optional[JittedCallee]:
    """The jitted function of this file an expression evaluates to, if it is one."""
    if isinstance(expr, cst.Call):
        return _from_wrapper(model, expr, label) or _from_factory(model, expr, None, label, depth + 1)
    if not isinstance(expr, cst.Name):
        return None
    info = model.resolve_function(expr)
    if info is not None:
        ctx = _decorator_context(info)
        return JittedCallee(info, ctx, 0, label) if ctx else None
    values = model.assigned_values(expr)
    if values is not None and len(values) == 1 and isinstance(values[0], cst.Call):
        return _jitted_expression(model, values[0], label, depth + 1)
    return None


def unpacked_source(model, name: cst.Name) -> Optional[tuple[cst.Call, int]]:
    """`(call, i)` where the only binding `name` sees is `a, name = call(...)`: the i-th
    element of what the call returns."""
    if model.comprehension_variable(name):
        return None
    bindings = model.scope_of(name).lookup(name.value)
    if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
        return None
    node = bindings[0].node
    if not isinstance(node, cst.Assign) or len(node.targets) != 1 or not isinstance(node.value, cst.Call):
        return None
    target = node.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    for i, el in enumerate(target.elements):
        if isinstance(el, cst.StarredElement):
            return None
        if isinstance(el.value, cst.Name) and el.value.value == name.value:
            return node.value, i
    return None


# The decorators that compile and cache: equinox's filter_jit keys its cache on the
# non-array leaves of its arguments as jit does on static arguments.
_CACHING_DECORATORS = frozenset({"jit", "pmap", "filter_jit"})


def _decorator_context(info: FunctionInfo) -> Optional[TraceContext]:
    for ctx in info.contexts.values():
        if ctx.via == "decorator" and ctx.transforms and ctx.transforms[0] in _CACHING_DECORATORS:
            return ctx
    return None


def method_of_self(model, expr: cst.Attribute) -> Optional[FunctionInfo]:
    return model.method_of_self(expr)


# ---------------------------------------------------------------- uses of a created callable
def call_uses(model, created: cst.CSTNode, name: Optional[cst.Name],
              sites: Optional[dict] = None, depth: int = 0) -> Optional[list[cst.Call]]:
    """The calls of a freshly created jitted callable, or None if it escapes.

    `created` is the `jax.jit(...)` call (or the decorated def); `name` the
    local name it is bound to, if any. The callable escapes when it is stored,
    passed on, or read in a nested function: then it may be created once and
    reused, and nothing can be said. With `sites`, a callable its function returns
    is followed to the callers, which bind the result and call it (`step =
    make_step(cfg); step(x)`); `sites` then maps each such call to the call of the
    function that made the callable. Without it, a returned callable escapes.
    """
    parent = model.parent(created)
    if isinstance(parent, cst.Call) and parent.func is created:
        return [parent]
    stored = stored_on_self(model, created)
    if stored is not None:
        # `self.f = jax.jit(self.f)`: the object's `f` runs wherever the file calls it.
        return callees.attribute_calls(model, *stored)
    if name is None:
        position = _returned_position(model, created) if sites is not None and depth < 2 else None
        if position is None:
            return None
        # `return jax.jit(step)`: what the callers bind and call.
        return _uses_at_callers(model, model.function_of(created), position, sites, depth)
    scope = model.scope_of(name)
    calls = []
    for ref in model.nodes(cst.Name):
        if ref.value != name.value or ref is name:
            continue
        if model.scope_of(ref) is not scope:
            if _sees(model, ref, scope, name.value):
                return None  # read from a nested function: a closure keeps it
            continue
        ref_parent = model.parent(ref)
        if isinstance(ref_parent, cst.Call) and ref_parent.func is ref:
            calls.append(ref_parent)
        elif applying_call(model, ref) is not None:
            calls.append(applying_call(model, ref))  # `jax.grad(step)(x)` calls `step`
        elif _is_target(model, ref):
            continue
        elif sites is not None and depth < 2 and _returned_position(model, ref) is not None:
            found = _uses_at_callers(model, model.function_of(ref), _returned_position(model, ref),
                                     sites, depth)
            if found is None:
                return None
            calls.extend(found)
        else:
            return None
    return calls


def stored_on_self(model, created: cst.CSTNode):
    """(class, attribute) for `self.<attribute> = created` in a method of a class of this file."""
    parent = model.parent(created)
    if not isinstance(parent, cst.Assign) or len(parent.targets) != 1:
        return None
    target = parent.targets[0].target
    if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)):
        return None
    klass = model.class_of_self(target.value)
    return (klass, target.attr.value) if klass is not None else None


def loops_running(model, node: cst.CSTNode) -> set:
    """The loops that run `node` on each of their passes: around it in its function, and,
    through every chain of calls of this file that runs its function, around those calls."""
    out = set()
    calls_of = calls_by_callee(model)
    todo, seen = [node], set()
    while todo:
        cur = todo.pop()
        loop = repeating_loop(model, cur)
        while loop is not None:
            out.add(loop)
            loop = repeating_loop(model, loop)
        owner = model.function_of(cur)
        if owner is not None and owner not in seen:
            seen.add(owner)
            todo.extend(calls_of.get(owner, ()))
    return out


def calls_by_callee(model) -> dict:
    """The calls of this file that run each function: its calls, and the applications of a
    dispatching transform of it made where it is applied (`jax.vmap(partial(f, p))(xs)`
    runs `f` once per application, as a call would; a cached one, jit, may not)."""
    found = getattr(model, "_recompile_calls_of", None)
    if found is None:
        found = {}
        for call in model.nodes(cst.Call):
            callee = called_function(model, call)
            if callee is not None:
                found.setdefault(callee, []).append(call)
        for info in model.functions:
            for ctx in info.contexts.values():
                applied = _applied_dispatching_wrapper(model, ctx)
                if applied is not None:
                    found.setdefault(info, []).append(applied)
        if "nodes" not in model.__dict__:  # not a rerun around deep code, which sees less
            model._recompile_calls_of = found
    return found


def runs_eagerly(model, node: cst.CSTNode, dispatching: bool = False) -> bool:
    """Whether `node` definitely runs outside any trace: the file's own top level runs it,
    directly or through calls of its functions, and every call that reaches it does so
    from there. A function no call of this file reaches (a library's, a step some other
    file jits) may well run traced, so it does not count.

    `dispatching`: also through transforms that cache nothing and dispatch each primitive
    as it comes (`DISPATCHING_TRANSFORMS`: `jax.vmap(f)(xs)` run from the top level), where
    lax control flow compiles on each call as it does eagerly."""
    calls_of = calls_by_callee(model)
    todo, seen = [node], set()
    while todo:
        cur = todo.pop()
        owner = model.function_of(cur)
        if owner is None:
            continue  # module level: a script's own run
        if owner in seen:
            continue
        seen.add(owner)
        if owner.traced:
            origins = _dispatching_origins(model, owner) if dispatching else None
            if origins is None:
                return False
            todo.extend(origins)
            continue
        if owner.is_lambda:
            return False
        calls = calls_of.get(owner, ())
        if not calls:
            return False
        todo.extend(calls)
    return True


def _dispatching_origins(model, func: FunctionInfo) -> Optional[list]:
    """Where `func` is traced, when every way it is is a dispatching transform applied
    where it is made (`jax.vmap(partial(f, p))(xs)`) or a call from a function so traced;
    None else (a wrapper kept in a name may be called under jit)."""
    origins = []
    for ctx in func.contexts.values():
        if ctx.via == "helper" and not ctx.cached and ctx.origin is not None and ctx.transforms \
                and set(ctx.transforms) <= DISPATCHING_TRANSFORMS:
            origins.append(ctx.origin)
            continue
        applied = _applied_dispatching_wrapper(model, ctx)
        if applied is None:
            return None
        origins.append(applied)
    return origins or None


def _applied_dispatching_wrapper(model, ctx) -> Optional[cst.Call]:
    """`jax.vmap(f)(xs)` for a context made by the wrapper `jax.vmap(f)` of a dispatching
    transform, applied at once: the call that runs the function."""
    if ctx.via != "wrapper" or ctx.cached or not ctx.transforms \
            or not set(ctx.transforms) <= DISPATCHING_TRANSFORMS or not isinstance(ctx.origin, cst.Call):
        return None
    applied = model.parent(ctx.origin)
    return applied if isinstance(applied, cst.Call) and applied.func is ctx.origin else None


def under_state_test(model, node: cst.CSTNode) -> bool:
    """Whether `node` runs only as an object's state allows: inside an `if`, or after an
    `if ...: return`, whose test reads an attribute of `self` that a method sets
    (`if self.built: return`, `if not hasattr(self, "_step")`), in its function or in one
    that calls it. Such code runs once per object (a latch), not on every call."""
    owner = model.function_of(node)
    if owner is None or owner.is_lambda:
        return False
    if _state_test_in(model, node, owner):
        return True
    memo = model.__dict__.setdefault("_recompile_state_tested", {}) if "nodes" not in model.__dict__ \
        else model.__dict__.setdefault("_recompile_state_tested_rerun", {})
    if owner not in memo:
        memo[owner] = False  # a cycle of calls proves nothing
        calls = calls_by_callee(model).get(owner, ())
        memo[owner] = bool(calls) and all(under_state_test(model, c) for c in calls)
    return memo[owner]


def _state_test_in(model, node: cst.CSTNode, owner) -> bool:
    klass = owner.klass
    state = callees.changing_attributes(model, klass) if klass is not None else frozenset()
    child = node
    for anc in model.ancestors(node):
        if anc is owner.node:
            break
        if isinstance(anc, cst.If) and child is anc.body and _reads_state(model, anc.test, state):
            return True
        if isinstance(anc, cst.IndentedBlock):
            for stmt in anc.body:
                if stmt is child:
                    break
                if isinstance(stmt, cst.If) and _leaves(stmt.body) and _reads_state(model, stmt.test, state):
                    return True
        child = anc
    return False


def _reads_state(model, test: cst.BaseExpression, state: frozenset) -> bool:
    for n in walk(test):
        if isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and n.value.value == "self" \
                and n.attr.value in state:
            return True
        if isinstance(n, cst.Call) and model.qualname(n.func) in ("builtins.hasattr", "builtins.getattr") \
                and n.args and isinstance(n.args[0].value, cst.Name) and n.args[0].value.value == "self":
            return True
    return False


def _leaves(block) -> bool:
    """A block that ends by leaving its function (`return`, `raise`)."""
    last = block.body[-1] if block.body else None
    if isinstance(block, cst.IndentedBlock) and isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Return, cst.Raise))


def _returned_position(model, ref: cst.CSTNode):
    """-1 for `return ref`, i for `return a, ref` (ref the i-th element), else None."""
    parent = model.parent(ref)
    if isinstance(parent, cst.Return):
        return -1
    if isinstance(parent, cst.Element) and isinstance(model.parent(parent), cst.Tuple) \
            and isinstance(model.parent(model.parent(parent)), cst.Return):
        return list(model.parent(parent).elements).index(parent)
    return None


def _uses_at_callers(model, owner, position: int, sites: dict, depth: int) -> Optional[list[cst.Call]]:
    """The calls of what `owner` returns (element `position`; -1: the whole value), made
    where it is called; None if any caller keeps or hands on the result."""
    if owner is None or owner.is_lambda:
        return None
    out: list[cst.Call] = []
    callers = calls_by_callee(model).get(owner)
    if not callers:
        return None
    for site in callers:
        parent = model.parent(site)
        if position == -1 and isinstance(parent, cst.Call) and parent.func is site:
            found = [parent]  # `make_step(cfg)(x)`
        elif isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
            if position >= 0 and isinstance(target, (cst.Tuple, cst.List)) \
                    and position < len(target.elements) \
                    and not any(isinstance(e, cst.StarredElement) for e in target.elements):
                target = target.elements[position].value
            elif position >= 0:
                return None
            if not isinstance(target, cst.Name):
                return None
            found = call_uses(model, site, target, sites, depth + 1)
        else:
            return None
        if found is None:
            return None
        for use in found:
            sites.setdefault(use, site)
        out.extend(found)
    return out


def _sees(model, ref: cst.Name, scope, name: str) -> bool:
    bindings = model.scope_of(ref).lookup(name)
    own = scope.bindings.get(name)
    return bindings is not None and bindings is own


def _is_target(model, ref: cst.Name) -> bool:
    parent = model.parent(ref)
    if isinstance(parent, cst.AssignTarget) and parent.target is ref:
        return True
    if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is ref:
        return True
    if isinstance(parent, cst.FunctionDef) and parent.name is ref:
        return True
    return isinstance(parent, cst.Del)


def bound_name(model, created: cst.Call) -> Optional[cst.Name]:
    """`f` in `f = jax.jit(...)`."""
    parent = model.parent(created)
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 \
            and isinstance(parent.targets[0].target, cst.Name):
        return parent.targets[0].target
    return None


def repeated_functions(model, any_loop: bool = False) -> set[FunctionInfo]:
    """Functions of this file called on every iteration of some loop, directly or
    through other such functions: whatever they create, they create again and again.
    A loop over a handful of values listed in the code (`for fused in (False, True)`)
    calls it a bounded, deliberate number of times: that does not count, unless
    `any_loop`."""
    callers: dict[FunctionInfo, list[cst.Call]] = calls_by_callee(model)
    repeated: set[FunctionInfo] = set()
    changed = True
    while changed:
        changed = False
        for callee, calls in callers.items():
            if callee in repeated:
                continue
            for call in calls:
                looped = repeating_loop(model, call) is not None if any_loop else repeats_over_steps(model, call)
                if looped or model.function_of(call) in repeated:
                    repeated.add(callee)
                    changed = True
                    break
    return repeated


def called_function(model, call: cst.Call) -> Optional[FunctionInfo]:
    """The function of this file a call runs: `f(...)` or `self.f(...)`; for a class of
    this file, `Model(...)` runs its `__init__`, and `net(x)` on an instance its `__call__`."""
    if isinstance(call.func, cst.Name):
        found = model.resolve_function(call.func)
        if found is None:
            klass = model.resolve_class(call.func)
            if klass is not None:
                return klass.methods.get("__init__")
            klass = model.value(call.func).cls
            if klass is not None and model.value(call.func).shape is Shape.OBJECT:
                return klass.methods.get("__call__")
        if found is None and model.resolve_class(call.func) is None:
            # `init_fn, update_fn = make_optimizer(...)`, then `update_fn(...)`: the
            # nested def the factory returns.
            found = callees.called_function(model, call)
        return found
    if isinstance(call.func, cst.Attribute):
        found = method_of_self(model, call.func) or model.method_of_instance(call.func)
        if found is None:
            # `agent.act(obs)` where the value analysis knows `agent` is an `Agent(...)`.
            klass = model.value(call.func.value).cls
            found = klass.methods.get(call.func.attr.value) if klass is not None else None
        if found is None:
            # `self.objective.build()`: an attribute or parameter the file shows holds one.
            found = callees.called_function(model, call)
        return found
    return None
