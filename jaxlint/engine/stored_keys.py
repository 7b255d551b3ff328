"""Keys stored on an object: a method that draws from `self.<key>`, when only `__init__`
sets it, draws the same numbers on every call. Called once per iteration of a loop,
it repeats them (JAX502), like a key drawn from in the loop itself.

Found once per file, as part of the key flow (`keyflow.key_findings`).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.keyflow import (
    _COMPREHENSIONS, KeyEvent, KeyFinding, KeyUse, _comprehension_targets, _key_argument,
)
from jaxlint.engine.model import FileModel, walk
from jaxlint.jax_api import RANDOM_SAMPLERS, RANDOM_SPLITTERS


def stored_key_findings(flow) -> list[KeyFinding]:
    """Calls, in a loop, of a method that draws from (or splits) `self.<key>` when only
    `__init__` sets that attribute: each call uses the same stored key, so it gives the
    same numbers (`self.rng_key` in a network's `apply`, called once per step)."""
    model = flow.model
    drawers = _stored_key_methods(model)
    if not drawers:
        return []
    out = []
    reported = set()
    for call in model.nodes(cst.Call):
        callee = _method_called(model, call.func)
        if callee not in drawers or callee is model.function_of(call) or drawers[callee] in reported:
            continue
        loop = flow._loop_of(call)
        if loop is None or flow._ends_after(call, loop):
            continue
        obj = call.func.value
        if not isinstance(obj, cst.Name):
            continue  # `Layer(k).apply(x)`: maybe a new object each time
        if obj.value != (callee.positional[:1] or [None])[0]:
            bindings = model.scope_of(call).lookup(obj.value) or []
            if isinstance(loop, _COMPREHENSIONS) and obj.value in _comprehension_targets(loop):
                continue
            if any(b.node is loop or loop in set(model.ancestors(b.node)) for b in bindings):
                continue  # a new object on each iteration
        draw = drawers[callee]
        repeat = KeyUse(call, draw.key, draw.base, draw.kind, model.module.code_for_node(call.func),
                        model.function_of(call), model.order[call])
        anchor = flow._anchor(call)
        if anchor is None or not (_mixed_in(model, draw) or flow.repeats_meet(repeat, loop, anchor=anchor)):
            continue  # a maker of inputs, whose each call's numbers are used on their own
        reported.add(draw)
        out.append(KeyFinding("JAX502", draw, None, loop, through=repeat))
    return out


def _mixed_in(model: FileModel, draw: KeyUse) -> bool:
    """The method computes with its draw (`mu + sigma * eps`): noise it injects, meant
    to be new on each call. A method that only returns its draws makes inputs, and a
    loop over test cases may want the same input for each."""
    names = {draw.call}
    parent = model.parent(draw.call)
    if isinstance(parent, cst.Assign):
        names = {t.target.value for t in parent.targets if isinstance(t.target, cst.Name)}
    for op in model.nodes(cst.BinaryOperation):
        if model.function_of(op) is not draw.function:
            continue
        parts = [n for n in walk(op) if isinstance(n, cst.Name) and n.value in names or n is draw.call]
        if parts:
            return True
    return False


def _method_called(model: FileModel, func: cst.BaseExpression) -> Optional[FunctionInfo]:
    """The method of a class of this file that `self.m` / `obj.m` names (obj's class known)."""
    if not isinstance(func, cst.Attribute):
        return None
    method = model.method_of_self(func)
    if method is not None:
        return method
    cls = model.value(func.value).cls
    methods = getattr(cls, "methods", None) or {}
    return methods.get(func.attr.value)


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
    for _ in range(4):  # a method calling such a method draws the same numbers too
        grown = False
        for call in model.nodes(cst.Call):
            callee = model.method_of_self(call.func)
            func = model.function_of(call)
            if callee in out and func is not None and func not in out and func.name != "__init__":
                out[func] = out[callee]
                grown = True
        if not grown:
            break
    return out
