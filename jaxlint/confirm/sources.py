"""The code confirm mode runs for a file that is not a plain module: a notebook's code cells,
or a cell script's.

The cells are joined in order into one module, the way jaxlint.notebook lints them (IPython
magics and shell lines become placeholders of the same line count). Findings carry cell lines;
the worker runs module lines; verdicts cite cells again. A cell script's Python keeps the
file's lines (`notebook.script_source`), so its findings and verdicts need no mapping.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional

from jaxlint import notebook
from jaxlint.finding import Diagnostic, Finding

# Per module line (1-based, index + 1): (cell number, line in cell).
Where = list[tuple[int, int]]


def notebook_module(path: str, data: Optional[str] = None) -> tuple[str, Where]:
    """The Python of the notebook's code cells, in order, and where each line came from: from
    `data` (the notebook's JSON, as an editor holds it unsaved) when given, else from the file.
    Raises ValueError when the notebook cannot be read."""
    nb = notebook.load(path, data.encode("utf-8") if data is not None else None)
    if isinstance(nb, Diagnostic):
        raise ValueError(nb.message)
    lines: list[str] = []
    where: Where = []
    for cell in nb.cells:
        # A cell that does not parse is skipped, as the linter skips it.
        if notebook._parses(cell.python) is not None:
            continue
        for i, text in enumerate(cell.python, 1):
            lines.append(text)
            where.append((cell.number, i))
    return "\n".join(lines) + "\n", where


def cell_script(path: str, text: Optional[str] = None) -> Optional[tuple[str, list[list[int]]]]:
    """A cell script's Python at the file's lines and its cells' line spans (from `text`,
    the file as an editor or stdin holds it, when given), or None: not a cell script."""
    if text is None:
        from jaxlint.source import read_source

        text = read_source(path)
        if not isinstance(text, str):
            return None
    return notebook.script_source(text)


def cell_spans(where: Where) -> list[list[int]]:
    """[first, last] module lines of each cell, in order: the worker runs them one by one."""
    spans: list[list[int]] = []
    for i, (cell, _) in enumerate(where, 1):
        if spans and where[spans[-1][0] - 1][0] == cell:
            spans[-1][1] = i
        else:
            spans.append([i, i])
    return spans


def module_line(where: Where, cell: int, line: int) -> int:
    try:
        return where.index((cell, line)) + 1
    except ValueError:
        return line


def to_module_lines(f: Finding, where: Where) -> Finding:
    if f.cell is None:
        return f
    return dataclasses.replace(f, line=module_line(where, f.cell, f.line),
                               end_line=module_line(where, f.cell, f.end_line), cell=None)


_LINE = re.compile(r"\b(?P<prep>(?:on|at|in) )?line (?P<n>\d+)\b|(?P<file>\.ipynb):(?P<m>\d+)\b")


def cite_cells(verdict: dict[str, Any], cell: int, where: Where) -> dict[str, Any]:
    """Module lines in the verdict's texts become cell lines."""
    def cite(m: re.Match) -> str:
        n = int(m.group("n") or m.group("m"))
        if not 0 < n <= len(where):
            return m.group(0)
        c, ln = where[n - 1]
        if m.group("file"):
            return f".ipynb:cell {c}:{ln}"
        if c == cell:
            return f"{m.group('prep') or ''}line {ln}"
        return f"{m.group('prep') or ''}cell {c}, line {ln}"

    out = dict(verdict)
    for key in ("summary", "evidence"):
        if isinstance(out.get(key), str):
            out[key] = _LINE.sub(cite, out[key])
    return out
