"""Incremental lint of a document that changes by edits (the language server's).

A full lint builds one model of the whole module, and a finding in one function can
depend on any other: who calls it and with what, whether something jits it, what a
callee returns, which globals are rebound. So an edit re-analyses the statements it
touched *and everything they are linked to*, and keeps the findings of the rest.

The unit is a top-level statement ("span": the statement with its decorators, the
blank lines and comments after it up to the next statement). Two spans are linked
when one mentions a name the other binds at module level: a function and its callers,
a helper and its users, a class and the code that reads its attributes (a span that
writes `x.attr` or defines a method `attr` binds `.attr`; one that reads `x.attr`
mentions it). Imports bind names but pass nothing on: two functions that both use `jnp`
are not linked through `import jax.numpy as jnp`. An edit of span S re-analyses A, the
spans reachable from S (old and new text) through links, transitively.

Information flows between spans only through such module-level bindings, and through
what every analysis sees: the module-level code, the imports, and any function that
imports or names x64 (the file-wide x64 and import facts). Those "context" spans are
in every re-analysis. So the findings of the spans in A, analysed in a module made of
A and the context spans (each at its own text; lines mapped back), are those of the
full module; the findings of every other span are the previous run's, moved by the
lines the edit added or removed.

Anything else is analysed in full: the first version, an edit of module-level code or
of an import, of a function that imports or mentions x64, a file with `import *`,
`setattr`, `globals()`, `exec` and the like (bindings no name shows), a previous run
with a diagnostic, text whose edit does not parse on its own, lines that
`str.splitlines` numbers differently from Python, and an edit whose A and context
make up more than half the file (the full run costs no more).
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import gc
import itertools
import re
import warnings
from typing import Optional

from jaxlint.config import Settings
from jaxlint.finding import FileResult, Finding
from jaxlint.source import PieceCache

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
# Line breaks of str.splitlines that Python's do not have (JAX100 numbers lines by splitlines).
_ODD_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# Names that bind or read module-level names no Name node shows.
_DYNAMIC = frozenset({"setattr", "delattr", "globals", "locals", "vars", "exec", "eval",
                      "__dict__", "__import__", "import_module", "__getattr__", "__builtins__"})

SINK, DEF, OTHER = "import", "def", "other"
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

# A re-analysis larger than this share of the file's lines is a full one.
MAX_SHARE = 0.5


class _Span:
    """One top-level statement (or several sharing a line), as lines of the document."""

    __slots__ = ("n", "text", "kind", "defs", "names", "context", "dynamic")

    def __init__(self, n: int, text: str, nodes: list[ast.stmt]):
        self.n = n
        self.text = text
        if all(isinstance(node, (ast.Import, ast.ImportFrom)) for node in nodes):
            self.kind = SINK
        elif all(isinstance(node, _DEFS) for node in nodes):
            self.kind = DEF
        else:
            self.kind = OTHER
        self.defs, self.names, imports, self.dynamic = _summary(nodes, self.kind)
        self.context = self.kind != DEF or imports or self.dynamic or "x64" in text.lower()


def _summary(nodes: list[ast.stmt], kind: str):
    """(module-level names and `.attr`s bound, names and `.attr`s mentioned, imports, dynamic)."""
    module_level = kind != DEF  # a def's own assignments bind locals
    defs: set[str] = set()
    names: set[str] = set()
    imports = dynamic = False
    for node in nodes:
        if kind == DEF:
            defs.update((node.name, "." + node.name))
        for sub in ast.walk(node):
            t = type(sub)
            if t is ast.Name:
                names.add(sub.id)
                if module_level and type(sub.ctx) is not ast.Load:
                    defs.add(sub.id)
            elif t is ast.Attribute:
                names.add("." + sub.attr)
                if type(sub.ctx) is not ast.Load:
                    defs.add("." + sub.attr)
            elif t is ast.Global:
                defs.update(sub.names)
            elif t in _DEFS:
                names.add(sub.name)
                if module_level:
                    defs.add(sub.name)
                if t is ast.ClassDef:
                    defs.update("." + n for n in _class_attributes(sub))
            elif t is ast.Import or t is ast.ImportFrom:
                imports = True
                for alias in sub.names:
                    if alias.name == "*":
                        dynamic = True
                    bound = alias.asname or alias.name.split(".")[0]
                    names.add(bound)
                    if module_level:
                        defs.add(bound)
            elif t is ast.ExceptHandler or t is ast.MatchAs or t is ast.MatchStar:
                if sub.name:
                    names.add(sub.name)
                    if module_level:
                        defs.add(sub.name)
            elif t is ast.MatchMapping and sub.rest:
                names.add(sub.rest)
                if module_level:
                    defs.add(sub.rest)
    names |= defs
    dynamic = dynamic or not names.isdisjoint(_DYNAMIC) or any("." + n in names for n in _DYNAMIC)
    return frozenset(defs), frozenset(names), imports, dynamic


def _class_attributes(node: ast.ClassDef):
    for item in node.body:
        if isinstance(item, _DEFS):
            yield item.name
        elif isinstance(item, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in item.targets if isinstance(item, ast.Assign) else [item.target]:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        yield sub.id


def _parse(text: str) -> Optional[ast.Module]:
    from jaxlint.data_statements import set_aside

    try:
        aside = set_aside(text)
        if aside is not None:
            return aside[1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _spans(body: list[ast.stmt], lines: list[str], base: int, end: int) -> Optional[list[_Span]]:
    """The spans of lines[base:end], whose statements (numbered from `base`) are `body`."""
    groups: list[list] = []  # [first line, last line, statements], 0-based in the document
    for node in body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())]) - 1 + base
        last = (node.end_lineno or node.lineno) - 1 + base
        if groups and first <= groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], last)
            groups[-1][2].append(node)
        else:
            groups.append([first, last, [node]])
    if not groups:
        return None
    starts = [base] + [g[0] for g in groups[1:]]
    ends = starts[1:] + [end]
    return [_Span(e - s, "".join(lines[s:e]), g[2]) for g, s, e in zip(groups, starts, ends)]


class Document:
    """One open document: its last text, spans and findings, and parse caches."""

    def __init__(self) -> None:
        self.pieces = PieceCache()  # for full runs
        self._slice_pieces = PieceCache()  # for re-analyses
        self._settings: Optional[tuple] = None
        self._lines: list[str] = []
        self._spans: Optional[list[_Span]] = None
        self._result: Optional[FileResult] = None
        self._mentions: dict[str, set[_Span]] = {}
        self._definers: dict[str, set[_Span]] = {}  # spans other than imports that bind the name
        # What the latest lint did: "full", or "incremental" with its share of the file.
        self.last: tuple = ("full",)

    def lint(self, text: str, path: str, settings: Settings) -> FileResult:
        from jaxlint.linter import lint_text

        key = (path, settings)
        result = None
        if self._spans is not None and key == self._settings:
            enabled = gc.isenabled()
            gc.disable()  # as in the linter: a parse and a model make many objects, few cycles
            try:
                result = self._incremental(text, path, settings)
            finally:
                if enabled:
                    gc.enable()
        if result is None:
            self._spans = None
            result = lint_text(text, path, settings, pieces=self.pieces)
            self._remember(text, settings, result)
            self.last = ("full",)
        self._settings = key
        return result

    # ------------------------------------------------------------ full runs
    def _remember(self, text: str, settings: Settings, result: FileResult) -> None:
        from jaxlint.linter import needs_analysis

        self._mentions, self._definers = {}, {}
        if result.diagnostics or not needs_analysis(text, settings) or _ODD_BREAKS.search(text):
            return
        tree = _parse(text)
        lines = _LINE.findall(text)
        spans = _spans(tree.body, lines, 0, len(lines)) if tree is not None else None
        if spans is None:
            return
        for span in spans:
            self._index(span)
        self._lines, self._spans, self._result = lines, spans, result

    def _index(self, span: _Span) -> None:
        for name in span.names:
            self._mentions.setdefault(name, set()).add(span)
        if span.kind != SINK:
            for name in span.defs:
                self._definers.setdefault(name, set()).add(span)

    def _unindex(self, span: _Span) -> None:
        for name in span.names:
            self._mentions[name].discard(span)
        if span.kind != SINK:
            for name in span.defs:
                self._definers[name].discard(span)

    # ------------------------------------------------------------ edits
    def _incremental(self, text: str, path: str, settings: Settings) -> Optional[FileResult]:
        from jaxlint.linter import analyse_text, needs_analysis

        if not needs_analysis(text, settings) or _ODD_BREAKS.search(text):
            return None
        old, new = self._lines, _LINE.findall(text)
        spans = self._spans
        n_old, n_new = len(old), len(new)
        common = min(n_old, n_new)
        p = 0
        while p < common and old[p] == new[p]:
            p += 1
        if p == n_old == n_new:
            return _copy(self._result)
        s = 0
        while s < common - p and old[n_old - 1 - s] == new[n_new - 1 - s]:
            s += 1
        # The spans around the changed lines, and the line before and after them.
        starts = list(itertools.accumulate((sp.n for sp in spans), initial=0))
        old_spans, old_firsts = spans, starts
        lo, hi = max(p - 1, 0), min(n_old - s, n_old - 1)
        i0 = bisect.bisect_right(starts, lo) - 1
        i1 = max(bisect.bisect_right(starts, hi) - 1, i0)
        region_start, region_end = starts[i0], starts[i1 + 1]
        delta = n_new - n_old
        tree = _parse("".join(new[region_start:region_end + delta]))
        if tree is None:
            return None
        added = _spans(tree.body, new, region_start, region_end + delta)
        removed = spans[i0:i1 + 1]
        if added is None or any(sp.kind != DEF or sp.context for sp in removed + added):
            return None

        # From here on the document's state is the new text's (a fallback rebuilds it).
        self._spans = None
        for sp in removed:
            self._unindex(sp)
        for sp in added:
            self._index(sp)
        spans = spans[:i0] + added + spans[i1 + 1:]
        if any(sp.dynamic for sp in spans):
            return None
        affected = self._linked(added, removed)
        starts = list(itertools.accumulate((sp.n for sp in spans), initial=0))
        chosen = [i for i, sp in enumerate(spans) if sp in affected or sp.context]
        if sum(spans[i].n for i in chosen) > MAX_SHARE * n_new:
            return None

        # The module of the chosen spans; slice line k + offset is document line k.
        parts, where, firsts, line = [], [], [], 0
        for i in chosen:
            parts.append(spans[i].text)
            firsts.append(line)
            where.append((starts[i] - line, spans[i] in affected))
            line += spans[i].n
        sliced = analyse_text("".join(parts), path, settings, None, True, self._slice_pieces)
        if sliced.diagnostics:
            return None

        def to_document(line: int) -> Optional[int]:
            k = bisect.bisect_right(firsts, line - 1) - 1
            return line + where[k][0] if k >= 0 else None

        findings = []
        for f in sliced.findings:
            k = bisect.bisect_right(firsts, f.line - 1) - 1
            if k >= 0 and where[k][1]:
                moved = _moved(f, to_document)
                if moved is None:
                    return None
                findings.append(moved)
        gone = set(map(id, removed))

        def old_to_new(line: int) -> Optional[int]:
            if line - 1 < region_start:
                return line
            if line - 1 >= region_end:
                return line + delta
            return None

        for f in self._result.findings:
            k = min(bisect.bisect_right(old_firsts, f.line - 1) - 1, len(old_spans) - 1)
            span = old_spans[k]
            if id(span) in gone or span in affected:
                continue
            moved = _moved(f, old_to_new)
            if moved is None:
                return None
            findings.append(moved)
        findings.sort(key=lambda f: f.sort_key)
        result = FileResult(path, findings=findings)
        self._lines, self._spans, self._result = new, spans, result
        self.last = ("incremental", round(sum(spans[i].n for i in chosen) / max(n_new, 1), 3), len(affected))
        return _copy(result)

    def _linked(self, added: list[_Span], removed: list[_Span]) -> set[_Span]:
        """The spans an edit (spans `removed` became `added`) may change the findings of."""
        affected = set(added)
        carried = set().union(*(sp.defs for sp in removed))  # names the old text bound
        todo = list(set().union(*(sp.names for sp in added + removed)))
        seen: set[str] = set()
        mentions, definers = self._mentions, self._definers
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if not definers.get(name) and name not in carried:
                continue  # bound only by imports, or not at module level: passes nothing on
            for sp in mentions.get(name, ()):
                if sp not in affected:
                    affected.add(sp)
                    if sp.kind != SINK:
                        todo.extend(sp.names)
        return affected


def _copy(result: FileResult) -> FileResult:
    return FileResult(result.path, findings=list(result.findings), diagnostics=list(result.diagnostics))


def _moved(f: Finding, to: "callable") -> Optional[Finding]:
    """`f` with every line number mapped by `to` (None: a line that has no image)."""
    line, end_line = to(f.line), to(f.end_line)
    function_line = to(f.function_line) if f.function_line is not None else None
    if line is None or end_line is None or (f.function_line is not None and function_line is None):
        return None
    fix = f.fix
    if fix and fix.get("edits"):
        edits = []
        for e in fix["edits"]:
            e = dict(e)
            for key in ("location", "end_location"):
                if isinstance(e.get(key), dict) and "row" in e[key]:
                    row = to(e[key]["row"])
                    if row is None:
                        return None
                    e[key] = {**e[key], "row": row}
            edits.append(e)
        fix = {**fix, "edits": edits}
    if (line, end_line, function_line, fix) == (f.line, f.end_line, f.function_line, f.fix):
        return f
    return dataclasses.replace(f, line=line, end_line=end_line, function_line=function_line, fix=fix)
