"""Fixes for JAX401 / JAX402: create the jitted function once, before the loop.

`jax.jit(f)` inside a loop is hoisted to a name assigned just before the loop,
and the loop uses that name. Unsafe: the wrapper is now created once, so a
function or bound method that changes during the loop is no longer re-read,
and a closure sees the values of the names it captures when it was created.
It is offered only when nothing the wrapper mentions is bound inside the loop.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.model import FileModel, walk
from jaxlint.fixes import build
from jaxlint.fixes.edits import DISPLAY_ONLY, UNSAFE, Fix
from jaxlint.rules import _recompile as rc

_MESSAGE = "Create the jitted function once, before the loop"



def bound_in(loop: cst.CSTNode) -> set[str]:
    """Names the loop binds: its target and every assignment in its body."""
    out: set[str] = set()
    targets = []
    if isinstance(loop, cst.For):
        targets.append(loop.target)
    for node in walk(loop):
        if isinstance(node, cst.AssignTarget):
            targets.append(node.target)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets.append(node.target)
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets.append(node.target)
        elif isinstance(node, cst.NamedExpr):
            targets.append(node.target)
        elif isinstance(node, cst.AsName):
            targets.append(node.name)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            out.add(node.name.value)
    for t in targets:
        out.update(n.value for n in walk(t) if isinstance(n, cst.Name))
    return out


def _fresh(model: FileModel, anchor: cst.CSTNode, base: str) -> str:
    scope = model.scope_of(anchor)
    name = base
    n = 2
    while scope.lookup(name) is not None:
        name = f"{base}{n}"
        n += 1
    return name


def hoist_fix(model: FileModel, call: cst.Call) -> Optional[Fix]:
    loop = rc.repeating_loop(model, call)
    if not isinstance(loop, (cst.For, cst.While)):
        return Fix(DISPLAY_ONLY, _MESSAGE + " (at module level, in `__init__`, or in a factory)")
    used = {n.value for n in walk(call) if isinstance(n, cst.Name)}
    if used & bound_in(loop):
        return Fix(DISPLAY_ONLY, _MESSAGE + ", passing what changes in the loop as arguments")
    target = rc.wrapped_callable(call)
    stem = "fn"
    if isinstance(target, cst.Name):
        stem = target.value
    elif isinstance(target, cst.Attribute):
        stem = target.attr.value
    name = _fresh(model, call, f"{stem.lstrip('_') or 'fn'}_jit")
    insert = build.insert_before(model, loop, [f"{name} = {build.code(model, call)}"])
    if insert is None:
        return Fix(DISPLAY_ONLY, _MESSAGE)
    return Fix(UNSAFE, f"{_MESSAGE}: `{name} = {build.code(model, call)}` (the wrapper no longer "
                       f"re-reads what it wraps on each iteration)",
               (insert, build.replace(model, call, name)))


def tuple_fix(model: FileModel, node: cst.CSTNode) -> Optional[Fix]:
    """JAX404: a list literal passed to a static argument becomes a tuple.

    Unsafe: the function now receives a tuple, and list-only operations on it
    (`axes + [2]`, `.append`) would fail.
    """
    if isinstance(node, cst.Arg):
        node = node.value
    if not isinstance(node, cst.List):
        return None
    items = [build.code(model, el.value) for el in node.elements]
    if any(el.__class__.__name__ == "StarredElement" for el in node.elements):
        return None
    text = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return Fix(UNSAFE, f"Pass a tuple: `{text}` (the function receives a tuple, not a list)",
               (build.replace(model, node, text),))
