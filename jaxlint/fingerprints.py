"""Stable fingerprints of findings: the rule, the flagged line's text, its occurrence.

A fingerprint hashes the code and the flagged line's text without its
whitespace, then counts repeats of that hash in the file (`:1`, `:2`, ...). It
does not use the line number, so it survives edits above the finding and
re-indentation. SARIF's `partialFingerprints.primaryLocationLineHash` and the
baseline (`--baseline`) both use it.
"""

from __future__ import annotations

import collections
import hashlib
from typing import Iterable, MutableMapping


def normalized(line: str) -> str:
    """A line's text without its whitespace: re-indenting it keeps the fingerprint."""
    return "".join(line.split())


def line_text(f, sources: MutableMapping[str, str], cells: dict, lines_of: dict = None) -> str:
    """The text of the finding's line (within its cell for notebooks).

    `lines_of` keeps each file's (or cell's) lines, split once as Python splits
    them, so fingerprinting many findings stays linear.
    """
    from jaxlint.source import read_source, source_lines

    lines_of = {} if lines_of is None else lines_of
    key = (f.path, f.cell)
    lines = lines_of.get(key)
    if lines is None:
        if f.cell:
            if f.path not in cells:
                from jaxlint.notebook import cell_sources

                cells[f.path] = cell_sources(f.path)
            text = cells[f.path].get(f.cell, "")
        else:
            text = sources.get(f.path)
            if text is None:
                text = read_source(f.path)
                text = sources[f.path] = text if isinstance(text, str) else ""
        lines = lines_of[key] = source_lines(text)
    return lines[f.line - 1] if 0 < f.line <= len(lines) else ""


def fingerprints(findings: Iterable, sources: MutableMapping[str, str]) -> list[str]:
    """One fingerprint per finding, in order: `hash:occurrence`."""
    seen: collections.Counter = collections.Counter()
    cells: dict = {}
    lines_of: dict = {}
    out = []
    for f in findings:
        text = normalized(line_text(f, sources, cells, lines_of))
        digest = hashlib.sha256(f"{f.code}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
        key = (f.path, f.cell, digest)
        seen[key] += 1
        out.append(f"{digest}:{seen[key]}")
    return out
