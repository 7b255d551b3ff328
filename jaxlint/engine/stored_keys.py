"""Keys stored on an object: a method that draws from `self.<key>`, when only `__init__`
sets it, draws the same numbers on every call. Called once per iteration of a loop,
it repeats them (JAX502), like a key drawn from in the loop itself.

Found once per file, as part of the key flow (`keyflow.key_findings`).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.callees import called_function
from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.keyflow import (
    _COMPREHENSIONS, KeyEvent, KeyFinding, KeyUse, _comprehension_targets, _key_argument,
)
from jaxlint.engine.model import FileModel, walk
from jaxlint.jax_api import KEY_CONSTRUCTORS, RANDOM_SAMPLERS, RANDOM_SPLITTERS, RANDOMNESS_OFF_FLAGS


def stored_key_findings(flow) -> list[KeyFinding]:
    """Calls, in a loop, of a function that draws the same numbers on every call: its key
    is `self.<key>` that only `__init__` sets, or is rebuilt on each call from a seed that
    the call does not change (`PRNGKey(seed)`, `seed` a layer's setting). The call reaches
    the function however the file shows: by name, a method through `self` or an object of
    known class, a transform applied where it is called, a factory's returned function."""
    model = flow.model
    drawers = _same_numbers_functions(model)
    if not drawers:
        return []
    out = []
    reported = set()
    for call in model.nodes(cst.Call):
        callee = called_function(model, call)
        if callee not in drawers or callee is model.function_of(call) or drawers[callee] in reported:
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
        # A key the function closes over may be a fixed evaluation stream (the same noise to
        # score each epoch by): only numbers that meet across iterations are repeats.
        mixed = _mixed_in(model, draw) and not _closed_over(model, draw)
        if anchor is None or not (mixed or flow.repeats_meet(repeat, loop, anchor=anchor)):
            continue  # a maker of inputs, whose each call's numbers are used on their own
        reported.add(draw)
        out.append(KeyFinding("JAX502", draw, None, loop, through=repeat))
    return out


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


def _same_numbers_functions(model: FileModel) -> dict:
    """Functions -> the draw (or split) that gives the same numbers on each of their calls,
    made directly or through a call of such a function (not from `__init__`, which runs
    once per object)."""
    out = _stored_key_methods(model)
    out.update({f: d for f, d in _fixed_seed_draws(model).items() if f not in out})
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
            if callee in out and callee is not func:
                out[func] = out[callee]
                grown = True
        if not grown:
            break
    return out


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
            made = _outside_key(model, func, arg)
            if made is None:
                bindings = func.scope.bindings.get(arg.value, [])
                values = model.assigned_values(arg)
                if len(bindings) != 1 or values is None or len(values) != 1:
                    continue
                made = values[0]
                if not _constructed(model, made) or not _outside_seed(model, func, made.args[0].value):
                    continue
        elif not _constructed(model, made) or not _outside_seed(model, func, made.args[0].value):
            continue
        kind = KeyEvent.SAMPLE if q in RANDOM_SAMPLERS else KeyEvent.SPLIT
        key = model.module.code_for_node(arg)
        out[func] = KeyUse(call, key, key, kind, q, func, model.order[call], seed=made)
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


def _stored_key_methods(model: FileModel) -> dict:
    """Methods -> the draw (or split) from `self.<attr>` they make, directly or through
    `self.other(...)`, where no code but `__init__` assigns `<attr>`."""
    refreshed = set()
    for node in model.nodes(cst.Assign, cst.AugAssign, cst.AnnAssign):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        func = model.function_of(node)
        for target in targets:
            for el in (target.elements if isinstance(target, (cst.Tuple, cst.List)) else [target]):
                el = getattr(el, "value", el)
                if isinstance(el, cst.Attribute) and (func is None or func.name != "__init__"):
                    refreshed.add(el.attr.value)
    out: dict = {}
    for call in model.nodes(cst.Call):
        q = model.qualname(call.func)
        if q not in RANDOM_SAMPLERS and q not in RANDOM_SPLITTERS:
            continue
        arg = _key_argument(call)
        func = model.function_of(call)
        if not isinstance(arg, cst.Attribute) or not isinstance(arg.value, cst.Name) or func is None \
                or func.klass is None or func.is_lambda or func.name == "__init__" \
                or not func.positional or arg.value.value != func.positional[0] \
                or arg.attr.value in refreshed or func in out:
            continue
        key = model.module.code_for_node(arg)
        kind = KeyEvent.SAMPLE if q in RANDOM_SAMPLERS else KeyEvent.SPLIT
        out[func] = KeyUse(call, key, key, kind, q, func, model.order[call])
    return out
