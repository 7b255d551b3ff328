"""Applying fixes: to text until stable, to files atomically, to notebooks in place.

The loop lints, applies every applicable fix whose edits do not overlap,
re-parses the result, and lints again, until no fix applies (ruff does the
same). A batch that does not parse is retried one fix at a time, and a fix
that breaks the code is never applied. Nothing is written before the new text
has parsed, and files are replaced atomically.
"""

from __future__ import annotations

import ast
import collections
import difflib
import io
import json
import tokenize
import warnings
from dataclasses import dataclass, field
from typing import Iterable, Optional, Union

from jaxlint.config import Settings
from jaxlint.finding import Diagnostic, FileResult, Finding
from jaxlint.fixes.edits import Fix, apply_edits, choose
from jaxlint.source import MAX_FILE_BYTES, read_bytes, write_atomic

MAX_ROUNDS = 20


@dataclass
class FixResult:
    """What fixing one file or text did."""

    path: str
    old: str
    new: str
    # Fixes applied, by code.
    applied: collections.Counter = field(default_factory=collections.Counter)
    # The lint of the fixed text: what is left.
    result: FileResult = None  # type: ignore[assignment]
    # For notebooks: per changed cell, (old source, new source).
    cells: dict[int, tuple[str, str]] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self) -> str:
        if self.cells:
            out = []
            for cell, (old, new) in sorted(self.cells.items()):
                out.extend(difflib.unified_diff(_lines(old), _lines(new), f"{self.path}:cell {cell}",
                                                f"{self.path}:cell {cell}"))
            return "".join(out)
        return "".join(difflib.unified_diff(_lines(self.old), _lines(self.new), self.path, self.path))


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def parses(text: str) -> bool:
    """Whether Python and libcst both parse the text: a fix never leaves code that does not."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    import libcst as cst

    try:
        cst.parse_module(text)
    except Exception:
        return False
    return True


def fixes_of(findings: Iterable[Finding], unsafe: bool) -> list[tuple[Finding, Fix]]:
    out = []
    for f in findings:
        fix = Fix.from_dict(f.fix)
        if fix is not None and fix.applies(unsafe):
            out.append((f, fix))
    return out


def _key(f: Finding) -> str:
    return json.dumps([f.code, f.fix], sort_keys=True)


def apply_fixes(text: str, fixes: Iterable[Fix]) -> str:
    """Apply a chosen set of fixes to text (overlapping ones: the first wins)."""
    chosen = choose(fixes)
    return apply_edits(text, [e for fix in chosen for e in fix.edits])


def fix_text(text: str, path: str, settings: Settings, unsafe: bool = False,
             lint=None) -> FixResult:
    """Fix `text` until no fix applies; the result says what was applied and what is left.

    A cell script (`# %%` cells) is linted as cells (`linter.lint_python`) and fixed as a
    notebook is: around a cell that does not parse, and a fix is kept only when every
    cell parses as before and its magic lines are as they were."""
    from jaxlint import notebook
    from jaxlint.linter import lint_python

    lint = lint or (lambda t: lint_python(t, path, settings))
    shape = notebook.script_shape(text)
    check = parses if shape is None else (lambda t: notebook.script_shape(t) == shape)
    applied: collections.Counter = collections.Counter()
    failed: set[str] = set()
    current = text
    result = lint(current)
    for _ in range(MAX_ROUNDS):
        if shape is None and any(d.code == "E999" for d in result.diagnostics):
            break
        candidates = [(f, fix) for f, fix in fixes_of(result.findings, unsafe) if _key(f) not in failed]
        chosen_fixes = choose(fix for _, fix in candidates)
        chosen = [(f, fix) for f, fix in candidates if any(fix is c for c in chosen_fixes)]
        if not chosen:
            break
        new = _try(current, [fix for _, fix in chosen], check)
        if new is not None:
            applied.update(f.code for f, _ in chosen)
            current = new
        else:
            progressed = False
            for f, fix in chosen:
                new = _try(current, [fix], check)
                if new is None:
                    failed.add(_key(f))
                    continue
                applied[f.code] += 1
                current = new
                progressed = True
                break  # positions moved: lint again
            if not progressed:
                continue
        result = lint(current)
    return FixResult(path, text, current, applied, result)


def _try(text: str, fixes: list[Fix], check=parses) -> Optional[str]:
    try:
        new = apply_edits(text, [e for fix in fixes for e in fix.edits])
    except ValueError:
        return None
    return new if new != text and check(new) else None


# Files --------------------------------------------------------------------------------
def _decode(data: bytes) -> tuple[str, str, bool]:
    bom = data.startswith(b"\xef\xbb\xbf")
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, ("utf-8" if encoding == "utf-8-sig" else encoding), bom


def read_for_rewrite(path: str) -> Union[tuple[str, str, bool], Diagnostic]:
    """A Python file's text, encoding and BOM, for code that writes it back (`--fix`,
    `--add-noqa`), or why it cannot be read. The linter's reader: a FIFO or device named
    x.py is refused, never read (it would block)."""
    data = read_bytes(path, MAX_FILE_BYTES)
    if isinstance(data, Diagnostic):
        return data
    if len(data) > MAX_FILE_BYTES:
        return Diagnostic(path, f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; skipped")
    if b"\0" in data:  # as the linter's reader: never rewrite a binary file
        return Diagnostic(path, "binary file (contains NUL bytes); skipped")
    try:
        return _decode(data)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        return Diagnostic(path, f"cannot decode file: {exc}")


def _encode(text: str, encoding: str, bom: bool) -> bytes:
    """The file's bytes for `text`, in the encoding (and with the BOM) `_decode` found."""
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode(encoding)


def fix_file(path: str, settings: Settings, unsafe: bool = False, write: bool = True) -> Union[FixResult, Diagnostic]:
    """Fix one file (a notebook in place); write it only when it changed and `write`."""
    from jaxlint import notebook

    if path.endswith(".ipynb"):
        return fix_notebook(path, settings, unsafe, write)

    read = read_for_rewrite(path)
    if isinstance(read, Diagnostic):
        return read
    text, encoding, bom = read
    result = fix_text(text, path, settings, unsafe)
    if write and result.changed:
        shape = notebook.script_shape(text)
        intact = parses(result.new) if shape is None else notebook.script_shape(result.new) == shape
        if not intact:  # pragma: no cover - fix_text never returns such text
            return Diagnostic(path, "fixes produced code that does not parse; file left unchanged")
        write_atomic(path, _encode(result.new, encoding, bom))
    return result


# Notebooks ------------------------------------------------------------------------------
def _cell_text(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _set_cell_text(cell: dict, text: str) -> None:
    if isinstance(cell.get("source"), list):
        cell["source"] = text.splitlines(keepends=True)
    else:
        cell["source"] = text


def _notebook_bytes(nb: dict, indent: int, ascii_only: bool = False) -> bytes:
    """The notebook as nbformat writes it (indent 1, UTF-8); `\\uXXXX` escapes kept when
    the file had them (an ASCII-only file stays ASCII-only)."""
    return (json.dumps(nb, indent=indent, ensure_ascii=ascii_only) + "\n").encode("utf-8")


def _indent_of(raw: str) -> int:
    for line in raw.splitlines()[1:3]:
        stripped = line.lstrip(" ")
        if stripped:
            return len(line) - len(stripped)
    return 1


def fix_notebook(path: str, settings: Settings, unsafe: bool = False, write: bool = True,
                 data: Optional[bytes] = None) -> Union[FixResult, Diagnostic]:
    """Fix a notebook's code cells in place; outputs, metadata and other cells are kept."""
    from jaxlint import notebook

    if data is None:
        from jaxlint.source import read_bytes

        data = read_bytes(path, notebook.MAX_NOTEBOOK_BYTES)
        if isinstance(data, Diagnostic):
            return data
    try:
        raw = data.decode("utf-8-sig")
        nb = json.loads(raw)
        cells = nb["cells"]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
        result = notebook.lint_notebook(path, settings, data)
        return FixResult(path, "", "", collections.Counter(), result)
    indent = _indent_of(raw)
    ascii_only = raw.isascii()
    original = {i + 1: _cell_text(c) for i, c in enumerate(cells) if isinstance(c, dict)}
    applied: collections.Counter = collections.Counter()
    failed: set[str] = set()

    def lint():
        return notebook.lint_notebook(path, settings, _notebook_bytes(nb, indent, ascii_only))

    def syntax_errors(res) -> int:
        return sum(d.code == "E999" for d in res.diagnostics)

    result = lint()
    for _ in range(MAX_ROUNDS):
        candidates = [(f, fix) for f, fix in fixes_of(result.findings, unsafe) if _key(f) not in failed]
        chosen = choose(fix for _, fix in candidates)
        if not chosen:
            break
        before = syntax_errors(result)
        progressed = False
        for batch in ([chosen] + [[c] for c in chosen]):
            saved = {n: _cell_text(cells[n - 1]) for n in original}
            try:
                _apply_to_cells(cells, batch)
            except ValueError:
                _restore(cells, saved)
                continue
            trial = lint()
            if syntax_errors(trial) > before or saved == {n: _cell_text(cells[n - 1]) for n in original}:
                _restore(cells, saved)
                if len(batch) == 1:
                    failed.update(_key(f) for f, fix in candidates if fix is batch[0])
                continue
            applied.update(f.code for f, fix in candidates if any(fix is b for b in batch))
            result = trial
            progressed = True
            break
        if not progressed:
            break
    changed = {n: (old, _cell_text(cells[n - 1])) for n, old in original.items()
               if _cell_text(cells[n - 1]) != old}
    new_data = _notebook_bytes(nb, indent, ascii_only) if changed else data
    out = FixResult(path, raw, new_data.decode("utf-8-sig") if changed else raw, applied, result, changed)
    if write and changed:
        write_atomic(path, new_data)
    return out


def _restore(cells: list, saved: dict[int, str]) -> None:
    for n, text in saved.items():
        _set_cell_text(cells[n - 1], text)


def _apply_to_cells(cells: list, fixes: list[Fix]) -> None:
    by_cell: dict[int, list] = collections.defaultdict(list)
    for fix in fixes:
        for e in fix.edits:
            if e.cell is None:
                raise ValueError("a notebook edit without a cell")
            by_cell[e.cell].append(e)
    for n, edits in by_cell.items():
        cell = cells[n - 1]
        _set_cell_text(cell, apply_edits(_cell_text(cell), edits))
