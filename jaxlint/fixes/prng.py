"""Fixes for PRNG key reuse (JAX501 / JAX502): split the key where it is reused.

In a loop: `key, subkey = jax.random.split(key)` becomes the first statement of
the body and the draw uses `subkey`. For two draws from one key: the split goes
before the first draw, and the second draw uses `subkey`. Unsafe: the numbers
drawn change (they become independent, which is the point).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.model import FileModel
from jaxlint.fixes import build
from jaxlint.fixes.edits import DISPLAY_ONLY, UNSAFE, Fix


def _key_arg(call: cst.Call, key: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if isinstance(arg.value, cst.Name) and arg.value.value == key and \
                (arg.keyword is None or arg.keyword.value == "key"):
            return arg
    return None


def _fresh(model: FileModel, anchor: cst.CSTNode, base: str = "subkey") -> str:
    scope = model.scope_of(anchor)
    name, n = base, 2
    while scope.lookup(name) is not None:
        name, n = f"{base}{n}", n + 1
    return name


def _split_line(model: FileModel, key: str, sub: str, anchor: cst.CSTNode):
    split, edits = build.spell(model, "jax.random.split", anchor)
    return f"{key}, {sub} = {split}({key})", edits


def split_in_loop(model: FileModel, found) -> Optional[Fix]:
    use, loop = found.use, found.loop
    arg = _key_arg(use.call, use.key)
    message = f"Split `{use.key}` on each iteration and draw from the subkey"
    if arg is None or not isinstance(loop, (cst.For, cst.While)) or \
            not isinstance(loop.body, cst.IndentedBlock) or not loop.body.body:
        return Fix(DISPLAY_ONLY, message)
    sub = _fresh(model, use.call)
    line, edits = _split_line(model, use.key, sub, use.call)
    insert = build.insert_before(model, loop.body.body[0], [line])
    if insert is None:
        return Fix(DISPLAY_ONLY, message)
    return Fix(UNSAFE, f"{message}: `{line}` (the numbers drawn change)",
               tuple(edits) + (insert, build.replace(model, arg.value, sub)))


def split_before_first(model: FileModel, found) -> Optional[Fix]:
    use, previous = found.use, found.previous
    message = f"Split `{use.key}` before its first draw and draw again from the subkey"
    if previous is None or use.kind != "sample":
        return Fix(DISPLAY_ONLY, message)
    arg = _key_arg(use.call, use.key)
    first = build.statement_of(model, previous.call)
    second = build.statement_of(model, use.call)
    if arg is None or first is None or second is None or \
            model.parent(first) is not model.parent(second) or first is second:
        return Fix(DISPLAY_ONLY, message)
    sub = _fresh(model, use.call)
    line, edits = _split_line(model, use.key, sub, previous.call)
    insert = build.insert_before(model, first, [line])
    if insert is None:
        return Fix(DISPLAY_ONLY, message)
    return Fix(UNSAFE, f"{message}: `{line}` (the numbers drawn change)",
               tuple(edits) + (insert, build.replace(model, arg.value, sub)))
