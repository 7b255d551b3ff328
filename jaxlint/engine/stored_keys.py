"""Keys stored on an object: a method that draws from `self.<key>`, when only `__init__`
sets it, draws the same numbers on every call. Called once per iteration of a loop,
it repeats them (JAX502), like a key drawn from in the loop itself.

Found once per file, as part of the key flow (`keyflow.key_findings`).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.callees import _function_with_param, argument_for, called_function
from jaxlint.engine.evaluate import _is_staticmethod
from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.keyflow import (
    _COMPREHENSIONS, KeyEvent, KeyFinding, KeyUse, _comprehension_targets, _key_argument, _through_partial,
    _unwrapped,
)
from jaxlint.engine.model import FileModel, walk
from jaxlint.engine.scopes import target_names
from jaxlint.jax_api import (CLOCK_FUNCTIONS, KEY_CONSTRUCTORS, KEY_MAKERS, LOGGING_FUNCTIONS, LOGGING_MODULES,
                             RANDOM_SAMPLERS, RANDOM_SPLITTERS, RANDOMNESS_OFF_FLAGS, TIMEIT_FUNCTIONS)

# A call that stores what it is given in its object: what a pass keeps for later.
_STORING = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})
# Waiting for the device in a loop measures it: a benchmark repeats one call on purpose.
_WAITING = frozenset({"jax.block_until_ready", "block_until_ready"})


def stored_key_findings(flow) -> list[KeyFinding]:
    """Calls, in a loop, of a function that draws the same numbers on every call: its key
    is `self.<key>` that only `__init__` sets, or is rebuilt on each call from a seed that
    the call does not change (`PRNGKey(seed)`, `seed` a layer's setting). The call reaches
    the function however the file shows: by name, a method through `self` or an object of
    known class, a transform applied where it is called, a factory's returned function."""
    model = flow.model
    drawers = _same_numbers_functions(model, _default_key_draws(flow), flow.consumers)
    if not drawers:
        return []
    out = []
    reported = set()
    for call in model.nodes(cst.Call):
        callee = called_function(model, call)
        if callee not in drawers or callee is model.function_of(call) or drawers[callee] in reported:
            continue
        if not _leaves_out_default(model, call, callee, drawers[callee]):
            continue
        loop = flow._loop_of(call)
        if loop is None or flow._ends_after(call, loop):
            continue
        if _new_receiver(model, call, callee, loop):
            continue
        draw = drawers[callee]
        repeat = KeyUse(call, draw.key, draw.base, draw.kind, model.module.code_for_node(call.func),
                        model.function_of(call), model.order[call])
        anchor = flow._anchor(call)
        # A key made outside the function (one it closes over, or a parameter's default, built
        # once when the `def` runs) may be a fixed stream chosen on purpose (the same noise to
        # score each epoch by, a sweep from one init): only numbers that meet across passes,
        # or passes that repeat one computation, are repeats.
        mixed = _mixed_in(model, draw) and not _closed_over(model, draw) and draw.default_of is None
        if anchor is None or not (mixed or flow.repeats_meet(repeat, loop, anchor=anchor)
                                  or _identical_passes(model, loop, call)):
            continue  # a maker of inputs, whose each call's numbers are used on their own
        reported.add(draw)
        out.append(KeyFinding("JAX502", draw, None, loop, through=repeat))
    return out


def _identical_passes(model: FileModel, loop: cst.CSTNode, call: cst.Call) -> bool:
    """Every pass of `loop` makes `call` with the same arguments and keeps nothing for the
    next (`for run in range(3): post = fitter.sample(); print(run, post)`): drawing from
    the same key, each pass computes the same numbers, which only a loop meant to give
    different ones would repeat. Its index is only shown (`print`), no name bound before
    the loop is rebound in it, nothing is stored into an object, no clock is read (a
    timing loop repeats on purpose), and the call's result is used (a bare call may only
    warm a cache)."""
    if not isinstance(loop, cst.For) or not isinstance(model.parent(call), (cst.Assign, cst.Arg)):
        return False
    index = {n.value for n in target_names(loop.target)}
    scope = model.scope_of(loop)
    for node in walk(loop.body):
        if isinstance(node, cst.Call):
            q = model.qualname(node.func) or ""
            method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
            if q in CLOCK_FUNCTIONS or q in TIMEIT_FUNCTIONS or q in _WAITING or method in _WAITING \
                    or method in _STORING:
                return False
        elif isinstance(node, cst.Name) and node.value in index and not _shown(model, node, loop):
            return False
        elif isinstance(node, (cst.AugAssign, cst.Global, cst.Nonlocal, cst.Yield)):
            return False
        elif isinstance(node, (cst.AssignTarget, cst.AnnAssign)):
            if not isinstance(node.target, (cst.Name, cst.Tuple, cst.List)):
                return False  # `self.x = ...`, `out[i] = ...`: kept beyond the pass
            for name in target_names(node.target):
                if any(b.order < model.order[loop] for b in scope.lookup(name.value) or []):
                    return False  # carried: the pass updates a value the next one reads
    return True


def _shown(model: FileModel, name: cst.Name, loop: cst.CSTNode) -> bool:
    """`name` is read only to be printed or logged."""
    for anc in model.ancestors(name):
        if anc is loop:
            return False
        if isinstance(anc, cst.Call):
            q = model.qualname(anc.func) or ""
            if q in LOGGING_FUNCTIONS or q.startswith(LOGGING_MODULES):
                return True
    return False


def _receiver(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The object a method call runs on: `net` in `net.apply(x)` or `jax.jit(net.apply)(x)`."""
    func = call.func
    for _ in range(4):
        if isinstance(func, cst.Call) and func.args and func.args[0].keyword is None:
            func = func.args[0].value
            continue
        break
    return func.value if isinstance(func, cst.Attribute) else func if isinstance(func, cst.Name) else None


def _new_receiver(model: FileModel, call: cst.Call, callee: FunctionInfo, loop: cst.CSTNode) -> bool:
    """A method called on an object that may be new on each iteration (`Layer(k).apply(x)`,
    or `net` rebound in the loop): each object holds its own key."""
    if not callee.is_method or callee.name == "__init__":
        return False
    obj = _receiver(call)
    if not isinstance(obj, cst.Name):
        return not (isinstance(obj, cst.Attribute) and isinstance(obj.value, cst.Name)
                    and model.class_of_self(obj.value) is not None)  # `self.net`: one object
    if obj.value == (callee.positional[:1] or [None])[0]:
        return False
    if isinstance(loop, _COMPREHENSIONS) and obj.value in _comprehension_targets(loop):
        return True
    bindings = model.scope_of(call).lookup(obj.value) or []
    return any(b.node is loop or loop in set(model.ancestors(b.node)) for b in bindings)


def _closed_over(model: FileModel, draw: KeyUse) -> bool:
    """The draw's key was made outside its function (`_outside_key`)."""
    return draw.seed is not None and model.function_of(draw.seed) is not draw.function


def _mixed_in(model: FileModel, draw: KeyUse) -> bool:
    """The function computes with its draw (`mu + sigma * eps`, `where(keep, x / p, 0)`):
    noise it injects into its input, meant to be new on each call. A function that only
    returns its draws makes inputs, and a loop over test cases may want the same input
    for each."""
    names = {draw.call}
    parent = model.parent(draw.call)
    if isinstance(parent, cst.Assign):
        names = {t.target.value for t in parent.targets if isinstance(t.target, cst.Name)}
    params = set(draw.function.all_params[1:] if draw.function.is_method else draw.function.all_params)
    for node in model.nodes(cst.BinaryOperation, cst.Call):
        if model.function_of(node) is not draw.function or node is draw.call:
            continue
        parts = [n for n in walk(node) if isinstance(n, cst.Name) and n.value in names or n is draw.call]
        if not parts:
            continue
        if isinstance(node, cst.BinaryOperation):
            return True
        if any(isinstance(n, cst.Name) and n.value in params for n in walk(node)):
            return True  # `jnp.where(keep, inputs / rate, 0)`: the draw meets the input
    return False


def _same_numbers_functions(model: FileModel, defaults: Optional[dict] = None,
                            consumers: Optional[dict] = None) -> dict:
    """Functions -> the draw (or split) that gives the same numbers on each of their calls,
    made directly or through a call of such a function (not from `__init__`, which runs
    once per object). A draw from a key parameter's default counts through the calls
    that leave that parameter out."""
    out = _stored_key_methods(model, consumers or {})
    out.update({f: d for f, d in _fixed_seed_draws(model).items() if f not in out})
    out.update({f: d for f, d in (defaults or {}).items() if f not in out})
    if not out:
        return out  # nothing to spread to callers (most files)
    callees: dict = {}  # call -> the function it runs, asked once over the rounds
    for _ in range(4):
        grown = False
        for call in model.nodes(cst.Call):
            func = model.function_of(call)
            if func is None or func in out or func.name == "__init__" or func.is_lambda:
                continue
            if call not in callees:
                callees[call] = called_function(model, call)
            callee = callees[call]
            if callee in out and callee is not func and _leaves_out_default(model, call, callee, out[callee]):
                out[func] = out[callee]
                grown = True
        if not grown:
            break
    return out


def _default_key_draws(flow) -> dict:
    """Functions -> the draw (or split, or consuming call) of a key parameter whose
    default is a key (`def sample(self, rkey=jax.random.PRNGKey(3))`). Python evaluates a
    default once, when the `def` runs, so every call that leaves the parameter out draws
    from that one key, whatever its seed."""
    model = flow.model
    out: dict = {}
    for uses in flow.uses_at.values():
        for use in uses:
            func = use.function
            if func is None or func in out or func.is_lambda or use.key != use.base:
                continue
            default = func.defaults.get(use.base)
            if not isinstance(default, cst.Call) or model.qualname(default.func) not in KEY_CONSTRUCTORS:
                continue
            if any(b.kind != "param" for b in func.scope.bindings.get(use.base, [])):
                continue  # rebound in the function: a split of it may come first
            out[func] = KeyUse(use.call, use.key, use.base, use.kind, use.qualname, func, use.order,
                               seed=default, default_of=use.base)
    return out


def _leaves_out_default(model: FileModel, call: cst.Call, callee: FunctionInfo, draw: KeyUse) -> bool:
    """Whether `call` runs `draw` with its key: always, unless the key is a parameter's
    default, which the call must leave out (a `*args` or `**kwargs` may pass it)."""
    if draw.default_of is None:
        return True
    if any(a.star for a in call.args):
        return False
    if any(a.keyword is not None and a.keyword.value == draw.default_of for a in call.args):
        return False
    positional = [a for a in call.args if a.keyword is None]
    shift = _shift(call, callee)
    index = callee.positional.index(draw.default_of) - shift if draw.default_of in callee.positional else -1
    return index < 0 or len(positional) <= index


def _fixed_seed_draws(model: FileModel) -> dict:
    """Functions -> a draw from a key each call builds from the same seed: `rng =
    PRNGKey(seed)` where `seed` is none of the function's own values (a setting of an
    enclosing factory, a module constant, an attribute). A literal seed written in the
    function (`PRNGKey(0)`) reads as a chosen fixed stream (an evaluation seed, a key
    for shapes), so it is left out."""
    out: dict = {}
    for call in model.nodes(cst.Call):
        q = model.qualname(call.func)
        func = model.function_of(call)
        if func is not None and not func.is_lambda and func not in out:
            applied = _noisy_apply_key(model, func, call)
            if applied is not None:
                key, made = applied
                out[func] = KeyUse(call, key.value, key.value, KeyEvent.SAMPLE,
                                   model.module.code_for_node(call.func), func, model.order[call], seed=made)
                continue
        if q not in RANDOM_SAMPLERS and q not in RANDOM_SPLITTERS:
            continue
        arg = _key_argument(call)
        if func is None or func.is_lambda or func in out or arg is None:
            continue
        made = arg
        if isinstance(arg, cst.Name):
            closed = _outside_key(model, func, arg)
            if closed is None:
                bindings = func.scope.bindings.get(arg.value, [])
                values = model.assigned_values(arg)
                if len(bindings) != 1 or values is None or len(values) != 1:
                    continue
                made = values[0]
            else:
                made = closed
        else:
            closed = None
        if not _constructed(model, made):
            continue
        unread = None
        if closed is None and not _outside_seed(model, func, made.args[0].value):
            unread = _unread_key_parameter(model, func) if isinstance(made.args[0].value, cst.Integer) else None
            if unread is None:
                continue
        kind = KeyEvent.SAMPLE if q in RANDOM_SAMPLERS else KeyEvent.SPLIT
        key = model.module.code_for_node(arg)
        out[func] = KeyUse(call, key, key, kind, q, func, model.order[call], seed=made, unread_key=unread)
    return out


def _noisy_apply_key(model: FileModel, func: FunctionInfo, call: cst.Call):
    """`(key, PRNGKey call)` for a model applied with noise switched on, from a key made
    outside the function: `m.apply(params, x, training=True, rngs={"dropout": dropout_rng})`.
    flax draws the dropout masks from the `rngs` it is given, so a fixed key gives the same
    masks on every call. The flag that turns the noise on must be written at the call."""
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "apply":
        return None
    options = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    noisy = any(name in options and isinstance(options[name], cst.Name)
                and options[name].value == str(not off) for name, off in RANDOMNESS_OFF_FLAGS.items())
    rngs = options.get("rngs")
    if not noisy or rngs is None:
        return None
    keys = [e.value for e in rngs.elements if isinstance(e, cst.DictElement)] if isinstance(rngs, cst.Dict) else [rngs]
    for key in keys:
        if isinstance(key, cst.Name):
            made = _outside_key(model, func, key)
            if made is not None:
                return key, made
    return None


def _constructed(model: FileModel, made) -> bool:
    """`made` is a key built from a seed: `PRNGKey(seed)`, `key(seed)`."""
    return isinstance(made, cst.Call) and model.qualname(made.func) in KEY_CONSTRUCTORS and bool(made.args)


def _outside_key(model: FileModel, func: FunctionInfo, key: cst.Name) -> Optional[cst.Call]:
    """The `PRNGKey(seed)` call behind a key the function reads from outside, when that is
    its one binding and nothing rebinds it: `dropout_rng = PRNGKey(42)` at module level,
    or in the factory that made the closure. Whatever its seed, every call of the
    function gets that same key."""
    if key.value in func.scope.bindings or key.value in model.global_writes:
        return None
    bindings = model.scope_of(key).lookup(key.value) or []
    values = model.assigned_values(key)
    if len(bindings) != 1 or not values or len(values) != 1 or not _constructed(model, values[0]):
        return None
    return values[0]


def _unread_key_parameter(model: FileModel, func: FunctionInfo) -> Optional[str]:
    """A parameter that every call of `func` passes a key to and that `func` never reads:
    it was handed a key to draw from, so its own literal seed is no chosen stream."""
    params = func.all_params[1:] if func.is_method else func.all_params
    read = {n.value for n in walk(func.node.body) if isinstance(n, cst.Name)}
    for param in params:
        if param not in read and _receives_keys(model, func, param, 0):
            return param
    return None


def _receives_keys(model: FileModel, func: FunctionInfo, param: str, depth: int) -> bool:
    """Every call of `func` the file shows passes a key to `param`."""
    calls = [c for c in model.nodes(cst.Call) if called_function(model, c) is func]
    return bool(calls) and all(_is_key(model, argument_for(c, func, param, _shift(c, func)), depth)
                               for c in calls)


def _is_key(model: FileModel, expr: Optional[cst.BaseExpression], depth: int) -> bool:
    """`expr` is a key: made by a key call (`split(rng)`, `PRNGKey(0)`), an element of
    one, a name every binding of which is one, or a parameter every caller passes one."""
    if expr is None or depth > 3:
        return False
    if isinstance(expr, cst.Call):
        return model.qualname(expr.func) in KEY_MAKERS
    if isinstance(expr, cst.Subscript):
        return _is_key(model, expr.value, depth)
    if not isinstance(expr, cst.Name) or model.comprehension_variable(expr):
        return False
    bindings = model.scope_of(expr).lookup(expr.value)
    if not bindings:
        return False
    for b in bindings:
        if b.kind == "param":
            owner = _function_with_param(model, expr)
            if owner is None or owner.is_lambda or not _receives_keys(model, owner, expr.value, depth + 1):
                return False
        elif not (b.kind == "assign" and isinstance(b.node, cst.Assign) and isinstance(b.node.value, cst.Call)
                  and model.qualname(b.node.value.func) in KEY_MAKERS):
            return False  # `rng, sub = jax.random.split(rng)` binds keys to both
    return True


def _shift(call: cst.Call, callee: FunctionInfo) -> int:
    """How many of `callee`'s positional parameters `call` binds before its arguments:
    `self`, for a method called on an object."""
    return 1 if callee.is_method and not _is_staticmethod(callee) and (
        isinstance(_unwrapped(call.func), cst.Attribute) or callee.name == "__call__") else 0


def _outside_seed(model: FileModel, func: FunctionInfo, seed: cst.BaseExpression) -> bool:
    """The seed is a name the function reads from outside and nothing rebinds (a
    closure's or the module's constant), or `self.<name>` only `__init__` sets."""
    if isinstance(seed, cst.Attribute) and isinstance(seed.value, cst.Name) \
            and model.class_of_self(seed.value) is not None:
        targets = model.attribute_targets(seed)
        return bool(targets) and all(
            (model.function_of(t) is not None and model.function_of(t).name == "__init__") for t in targets)
    if not isinstance(seed, cst.Name) or seed.value in func.scope.bindings:
        return False
    bindings = model.scope_of(seed).lookup(seed.value) or []
    if len(bindings) != 1 or bindings[0].kind not in ("param", "assign") or seed.value in model.global_writes:
        return False
    binding = bindings[0]
    if binding.kind == "assign":
        values = model.assigned_values(seed)
        return bool(values) and len(values) == 1 and isinstance(values[0], (cst.Integer, cst.Name))
    return True  # a parameter of an enclosing function: fixed for the closure's life


def _stored_key_methods(model: FileModel, consumers: dict) -> dict:
    """Methods -> the draw (or split) from `self.<attr>` they make, directly, through
    `self.other(...)`, or through a function of the file that draws from the key passed
    to it (`sample(self.rng, logits)`, jitted or not), where no code but `__init__`
    assigns `<attr>`."""
    refreshed = set()
    for node in model.nodes(cst.Assign, cst.AugAssign, cst.AnnAssign):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        func = model.function_of(node)
        for target in targets:
            for el in _assigned(target):
                if isinstance(el, cst.Attribute) and (func is None or func.name != "__init__"):
                    refreshed.add(el.attr.value)
    out: dict = {}
    for call in model.nodes(cst.Call):
        func = model.function_of(call)
        if func is None or func.klass is None or func.is_lambda or func.name == "__init__" \
                or not func.positional or func in out:
            continue
        q = model.qualname(call.func)
        if q in RANDOM_SAMPLERS or q in RANDOM_SPLITTERS:
            drawn = [(_key_argument(call), KeyEvent.SAMPLE if q in RANDOM_SAMPLERS else KeyEvent.SPLIT)]
        elif consumers and any(_stored_key(a.value, func, refreshed) for a in call.args):
            drawn, q = _passed_keys(model, call, consumers)
        else:
            continue
        for arg, kind in drawn:
            if _stored_key(arg, func, refreshed):
                key = model.module.code_for_node(arg)
                out[func] = KeyUse(call, key, key, kind, q, func, model.order[call])
                break
    return out


def _assigned(target: cst.BaseExpression) -> list:
    """The expressions an assignment target writes: `a`, `self.key`, each of
    `self.key, sub` and of nested or starred tuples (an element's `.value` is what it
    writes; an attribute's `.value` is its object, so attributes are not unwrapped)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [t for el in target.elements for t in _assigned(el.value)]
    return [target]


def _stored_key(arg, func: FunctionInfo, refreshed: set) -> bool:
    """`arg` is `self.<attr>` of `func`'s object, and only `__init__` assigns `<attr>`."""
    return isinstance(arg, cst.Attribute) and isinstance(arg.value, cst.Name) \
        and arg.value.value == func.positional[0] and arg.attr.value not in refreshed


def _passed_keys(model: FileModel, call: cst.Call, consumers: dict) -> tuple:
    """([(argument, event)] for each key parameter of the function `call` runs that the
    function draws from or splits, and its name)."""
    helper = called_function(model, call)
    if helper not in consumers or _through_partial(model, call.func):
        return [], None
    shift = _shift(call, helper)
    return [(argument_for(call, helper, param, shift), kind)
            for param, sub, kind in consumers[helper] if sub is None], helper.name
