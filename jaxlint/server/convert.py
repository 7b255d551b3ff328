"""Findings as LSP diagnostics, fixes as LSP text edits: positions in the client's units.

jaxlint counts lines from 1 and columns in code points from 1; LSP counts both
from 0, and columns in the code units the client chose (UTF-16 unless it asked
for another). Lines are Python's (`source.source_lines`), which break where LSP
clients do: at \\n, \\r\\n and \\r.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Optional

from lsprotocol import types

from jaxlint.finding import Diagnostic, Finding
from jaxlint.fixes import Edit, Fix
from jaxlint.source import source_lines

SOURCE = "jaxlint"
_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
             "info": types.DiagnosticSeverity.Information}


@lru_cache(maxsize=None)
def removed_api_codes() -> frozenset[str]:
    """The rules about removed or deprecated JAX APIs: their diagnostics carry LSP's
    `Deprecated` tag (editors strike the code through)."""
    from jaxlint.rules import all_rules
    from jaxlint.rules.jax901_removed_tree_alias import RemovedAPIChecks

    return frozenset(code for code, rule in all_rules().items() if issubclass(rule, RemovedAPIChecks))


class Lines:
    """A text's lines, for turning (line, column) into LSP positions in the client's units."""

    def __init__(self, text: str, codec):
        self.lines = source_lines(text)
        self.codec = codec

    def position(self, line: int, col: int) -> types.Position:
        """1-based line, 1-based code-point column -> an LSP position."""
        if line > len(self.lines):
            return types.Position(line=len(self.lines), character=0)
        row = max(line, 1) - 1
        text = self.lines[row] if self.lines else ""
        return types.Position(line=row, character=self.codec.client_num_units(text[:max(col, 1) - 1]))

    def range(self, line: int, col: int, end_line: int, end_col: int) -> types.Range:
        return types.Range(start=self.position(line, col), end=self.position(end_line, end_col))

    def line_range(self, line: int) -> types.Range:
        """The whole of one line (1-based), without its line break."""
        row = min(max(line, 1), max(len(self.lines), 1)) - 1
        text = self.lines[row] if row < len(self.lines) else ""
        return types.Range(start=types.Position(line=row, character=0),
                           end=types.Position(line=row, character=self.codec.client_num_units(text)))


def finding_diagnostic(f: Finding, lines: Lines, verdict: Optional[dict] = None) -> types.Diagnostic:
    message = f.message
    related = None
    if verdict:
        message += f"\n\nconfirm: {verdict.get('verdict', '?')}"
        if verdict.get("summary"):
            message += f": {verdict['summary']}"
        if verdict.get("evidence"):
            related = [types.DiagnosticRelatedInformation(
                location=types.Location(uri=verdict["uri"], range=lines.range(
                    f.line, f.col, f.end_line, f.end_col)),
                message=f"evidence: {verdict['evidence']}")] if verdict.get("uri") else None
    fix = Fix.from_dict(f.fix)
    return types.Diagnostic(
        range=lines.range(f.line, f.col, f.end_line, f.end_col),
        message=message, severity=_SEVERITY.get(f.severity, types.DiagnosticSeverity.Error),
        code=f.code, source=SOURCE,
        tags=[types.DiagnosticTag.Deprecated] if f.code in removed_api_codes() else None,
        related_information=related,
        data={"fixable": fix.applicability if fix is not None and fix.edits else None})


def file_diagnostic(d: Diagnostic, lines: Lines) -> types.Diagnostic:
    """A file jaxlint could not lint (a syntax error, a parser crash): one line saying why."""
    if d.line is not None:
        rng = lines.range(d.line, d.col or 1, d.line, d.col or 1) if d.col else lines.line_range(d.line)
    else:
        rng = lines.line_range(1)
    message = " ".join(d.message.split())
    return types.Diagnostic(range=rng, message=message, severity=types.DiagnosticSeverity.Error,
                            code=d.code, source=SOURCE)


def text_edits(edits: Iterable[Edit], lines: Lines) -> list[types.TextEdit]:
    return [types.TextEdit(range=lines.range(e.line, e.col, e.end_line, e.end_col), new_text=e.content)
            for e in edits]


def whole_text_edit(old: str, new: str, lines: Lines) -> list[types.TextEdit]:
    """One edit turning `old` into `new`: the changed span only (the cursor stays put)."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    return [types.TextEdit(range=types.Range(start=_at(old, start, lines), end=_at(old, len(old) - end, lines)),
                           new_text=new[start:len(new) - end])]


def _at(text: str, offset: int, lines: Lines) -> types.Position:
    before = source_lines(text[:offset] + "x")  # "x": a position just after a line break starts a line
    return lines.position(len(before), len(before[-1]))


def overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)
    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def contains(r: types.Range, p: types.Position) -> bool:
    return (r.start.line, r.start.character) <= (p.line, p.character) <= (r.end.line, r.end.character)

