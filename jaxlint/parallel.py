"""A large file analysed on two cores: its statements in two halves, one in a helper process.

libcst's parse, the model and the rules of one file run on one core: a 100,000-line
module takes about 15 CPU seconds. But a file's top-level statements fall into groups
that pass nothing to one another: the server's incremental analysis links a function to
its callers, a global to its readers, a method to the attributes it defines
(`incremental.link_groups`). Each half of the groups is analysed as a module of its own
statements and the context statements (imports and module-level code, which every
analysis sees), the other half's statements blanked to empty lines, so that every line
and column, and every line a message names, is the document's. The findings of a half's
own statements are those of the whole module, by the argument the server's incremental
analysis rests on; a context statement's come from the half that holds its group.

The file is analysed whole instead when a core is not free, when its groups cannot be
halved (one group holds most of the file, or the context does), when anything binds
names no `Name` shows (`import *`, `setattr`, `globals()`), when a half reports a
diagnostic, and when the program-order walk (engine/order.py) may have reached its limit
of events, past which a half could walk further than the whole.
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import Optional

from jaxlint.config import Settings
from jaxlint.engine.model import CellStarts
from jaxlint.finding import FileResult

#: Files with fewer lines are analysed whole: the split costs a fork and a walk of
#: Python's tree of the file, and saves little below this.
SPLIT_LINES = 5000
#: A half must hold at least this share of the lines outside the context statements.
MIN_SHARE = 0.25

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_BREAK = re.compile(r"(?:\r\n|\r|\n)\Z")


def analyse_on_two_cores(text: str, path: str, settings: Settings, codes: Optional[frozenset[str]],
                         apply_noqa: bool, cells: CellStarts = None) -> FileResult:
    """`linter.analyse_text(text, ...)`: in two halves on two cores where it pays, else whole."""
    from jaxlint import source
    from jaxlint.linter import analyse_text

    if text.count("\n") < SPLIT_LINES or not _core_free():
        return analyse_text(text, path, settings, codes, apply_noqa, cells=cells)
    vetted = source.vet(text, path)
    if not isinstance(vetted, tuple):  # a syntax error: the whole parse says which
        return analyse_text(text, path, settings, codes, apply_noqa, cells=cells)
    halves = _halves(text, *vetted)
    if halves is None:
        return analyse_text(text, path, settings, codes, apply_noqa, vetted=vetted, cells=cells)
    result = _analyse_halves(halves, path, settings, codes, apply_noqa, cells)
    if result is None:
        return analyse_text(text, path, settings, codes, apply_noqa, vetted=vetted, cells=cells)
    return result


def _core_free() -> bool:
    from jaxlint import source

    return source._use_helper(2)


class _Half:
    """One half's module (its own and the context statements; the rest blank lines) and
    the document lines whose findings are its own."""

    def __init__(self, text: str, code: str, tree, owned: list[tuple[int, int]]):
        self.text = text  # the document's text, blanked
        self.code = code  # the text libcst parses (data statements set aside), blanked
        self.tree = tree  # Python's tree of `code`
        self.owned = owned  # [first line, last line) of its statements, 1-based

    def owns(self, line: int) -> bool:
        k = bisect.bisect_right(self.owned, (line, float("inf"))) - 1
        return k >= 0 and self.owned[k][0] <= line < self.owned[k][1]


def _halves(text: str, code: str, tree) -> Optional[tuple[_Half, _Half]]:
    import ast

    from jaxlint.incremental import _ODD_BREAKS, _spans, link_groups

    if _ODD_BREAKS.search(text):  # lines that `str.splitlines` (JAX100) numbers apart
        return None
    lines, code_lines = _LINE.findall(text), _LINE.findall(code)
    if len(lines) != len(code_lines):
        return None
    spans = _spans(tree.body, code_lines, 0, len(code_lines))
    if spans is None or any(sp.dynamic for sp in spans):
        return None
    group = link_groups(spans)
    starts = list(itertools.accumulate((sp.n for sp in spans), initial=0))
    # Groups in the order of their first span; the first half takes them until it holds
    # half of the lines outside the context.
    sizes: dict[int, int] = {}
    for i, sp in enumerate(spans):
        if not sp.context:
            sizes[group[i]] = sizes.get(group[i], 0) + sp.n
    free = sum(sizes.values())
    if free < MIN_SHARE * 2 * len(lines):  # mostly context: each half would hold most of it
        return None
    first_half, held = set(), 0
    for g, n in sizes.items():
        if held >= free / 2:
            break
        first_half.add(g)
        held += n
    if not MIN_SHARE * free <= held <= (1 - MIN_SHARE) * free:
        return None
    # Python's statements by span, to give each half the tree of its module.
    statements: list[list] = [[] for _ in spans]
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())]) - 1
        statements[bisect.bisect_right(starts, first) - 1].append(node)
    out = []
    for mine in (lambda g: g in first_half, lambda g: g not in first_half):
        kept = [i for i, sp in enumerate(spans) if sp.context or mine(group[i])]
        owned = [(starts[i] + 1, starts[i + 1] + 1) for i, sp in enumerate(spans) if mine(group[i])]
        keep = set(kept)
        text_half, code_half = [], []
        for i, sp in enumerate(spans):
            a, b = starts[i], starts[i + 1]
            if i in keep:
                text_half.extend(lines[a:b])
                code_half.extend(code_lines[a:b])
            else:
                blank = [_blank(line) for line in lines[a:b]]
                text_half.extend(blank)
                code_half.extend(blank)
        body = [node for i in kept for node in statements[i]]
        out.append(_Half("".join(text_half), "".join(code_half), ast.Module(body=body, type_ignores=[]),
                         owned))
    return out[0], out[1]


def _blank(line: str) -> str:
    m = _BREAK.search(line)
    return m.group() if m else ""


def _analyse_half(half: _Half, path: str, settings: Settings, codes, apply_noqa: bool, cells: CellStarts = None):
    """(the findings of the half's own statements, its diagnostics, its walk's events)."""
    from jaxlint.linter import analyse_text

    events = []
    result = analyse_text(half.text, path, settings, codes, apply_noqa, vetted=(half.code, half.tree), cells=cells,
                          on_model=lambda model: events.append(model.program_events))
    return [f for f in result.findings if half.owns(f.line)], result.diagnostics, sum(events)


def _analyse_halves(halves: tuple[_Half, _Half], path: str, settings: Settings, codes,
                    apply_noqa: bool, cells: CellStarts = None) -> Optional[FileResult]:
    """The whole file's result, from its two halves; None where it must be analysed whole."""
    from jaxlint.engine.order import _MAX_EVENTS
    from jaxlint.processes import Helper

    mine_half, their_half = halves
    helper = Helper(_analyse_half, their_half, path, settings, codes, apply_noqa, cells)
    try:
        mine = _analyse_half(mine_half, path, settings, codes, apply_noqa, cells)
    except BaseException:
        helper.cancel()
        raise
    theirs = helper.result(_HELPER_TIMEOUT)
    if theirs is None:  # the helper failed (out of memory, say): its half, here
        theirs = _analyse_half(their_half, path, settings, codes, apply_noqa, cells)
    (found, diagnostics, events), (found_too, diagnostics_too, events_too) = mine, theirs
    # A diagnostic may be about the file (a rule that failed on it), and the whole
    # walk's events are at most the halves' together: below the limit, neither half
    # walked further than the whole.
    if diagnostics or diagnostics_too or events + events_too >= _MAX_EVENTS:
        return None
    return FileResult(path, findings=sorted(found + found_too, key=lambda f: f.sort_key))


_HELPER_TIMEOUT = 120.0
