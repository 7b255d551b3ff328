"""`# noqa` maintenance: unused and unknown JAX codes (JAX100), and `--add-noqa`.

JAX100 is opt-in, like ruff's RUF100. It looks only at JAX codes: `# noqa: E501`
belongs to another tool and is never reported, and a bare `# noqa` is left alone
(it may be there for flake8 or ruff).
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Iterable

from jaxlint.finding import Finding
from jaxlint.fixes.edits import SAFE, Edit, Fix

# The `noqa: codes` part of a comment (flake8's syntax).
_NOQA = re.compile(r"#\s*noqa:\s?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*)", re.I)
_BARE_NOQA = re.compile(r"#\s*noqa\b(?!:)", re.I)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.I)
CODE = "JAX100"


def comments(text: str) -> list[tuple[int, int, str]]:
    """(line, 0-based column, text) of every comment token; [] if the text does not tokenize."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.start[1], tok.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    return out


def _known(code: str, rules: Iterable[str]) -> bool:
    return code == "JAX000" or any(r.startswith(code) for r in rules)


def unused_noqa_findings(path: str, text: str, findings: list[Finding],
                         enabled: frozenset[str]) -> list[Finding]:
    """JAX100 findings: JAX codes in `# noqa:` that suppress nothing, or that name no rule."""
    from jaxlint.rules import all_rules

    if not any("JAX" in m.group("codes").upper() for m in _NOQA.finditer(text)):
        # A comment's `noqa: JAX...` is in the text too (a match never takes a `#`, so
        # none hides another): most files have none, and need no tokenizing, a tenth
        # of a lint's time when JAX100 is on.
        return []
    rules = set(all_rules())
    lines = text.splitlines()
    by_line: dict[int, set[str]] = {}
    for f in findings:
        by_line.setdefault(f.line, set()).add(f.code)
    out = []
    for line, col, comment in comments(text):
        m = _NOQA.search(comment)
        if not m:
            continue
        codes = [c.upper() for c in _CODE.findall(m.group("codes"))]
        unknown = [c for c in codes if c.startswith("JAX") and not _known(c, rules)]
        unused = [c for c in codes if c.startswith("JAX") and _known(c, rules) and c != CODE
                  and any(r.startswith(c) for r in enabled)
                  and not any(found.startswith(c) for found in by_line.get(line, ()))]
        if not unknown and not unused:
            continue
        parts = []
        if unused:
            parts.append("unused: " + ", ".join(f"`{c}`" for c in unused))
        if unknown:
            parts.append("unknown: " + ", ".join(f"`{c}`" for c in unknown))
        keep = [c for c in codes if c not in unused and c not in unknown]
        start, end = col + m.start(), col + m.end()
        line_text = lines[line - 1] if 0 < line <= len(lines) else ""
        fix = _rewrite(line, col, comment, m, keep, line_text)
        out.append(Finding(
            path=path, line=line, col=start + 1, end_line=line, end_col=end + 1, code=CODE,
            message=f"`noqa` directive suppresses nothing here ({'; '.join(parts)}); remove "
                    f"{'it' if not keep else 'the code' + ('s' if len(codes) - len(keep) > 1 else '')}",
            name="unused-noqa", severity="warning", fix=fix.to_dict()))
    return out


def _rewrite(line: int, col: int, comment: str, m: re.Match, keep: list[str], line_text: str = "") -> Fix:
    if keep:
        new = f"# noqa: {', '.join(keep)}"
        return Fix(SAFE, "Remove the unused codes",
                   (Edit(line, col + m.start() + 1, line, col + m.end() + 1, new),))
    rest = (comment[:m.start()] + comment[m.end():]).strip()
    if rest in ("", "#"):
        # Remove the whole comment with the spaces before it.
        start = len(line_text[:col].rstrip(" \t")) if line_text[:col].strip() else col
        return Fix(SAFE, "Remove the `noqa` directive", (Edit(line, start + 1, line, col + len(comment) + 1, ""),))
    after = comment[m.end():]
    if m.start() > 0:  # `# type: ignore  # noqa: JAX301`: drop it with the spaces before it
        start = len(comment[:m.start()].rstrip(" \t"))
        return Fix(SAFE, "Remove the `noqa` directive",
                   (Edit(line, col + start + 1, line, col + m.end() + 1, ""),))
    if after.lstrip().startswith("#"):  # `# noqa: JAX301  # why`: keep the second comment
        end = m.end() + len(after) - len(after.lstrip())
        return Fix(SAFE, "Remove the `noqa` directive", (Edit(line, col + 1, line, col + end + 1, ""),))
    # `# noqa: JAX301 because ...`: the rest stays a comment
    return Fix(SAFE, "Remove the `noqa` directive",
               (Edit(line, col + 1, line, col + m.end() + 1, "#"),))


# --add-noqa -------------------------------------------------------------------------
def add_noqa_edits(text: str, codes_by_line: dict[int, set[str]]) -> list[Edit]:
    """Edits that put `# noqa: CODE` on each line (merged into an existing `# noqa:`)."""
    lines = text.splitlines()
    found = {line: (col, comment) for line, col, comment in comments(text)}
    edits = []
    for line, codes in sorted(codes_by_line.items()):
        if not 0 < line <= len(lines):
            continue
        if line in found:
            col, comment = found[line]
            m = _NOQA.search(comment)
            if m:
                have = [c.upper() for c in _CODE.findall(m.group("codes"))]
                missing = sorted(c for c in codes if not any(c.startswith(h) for h in have))
                if missing:
                    new = f"# noqa: {', '.join(have + missing)}"
                    edits.append(Edit(line, col + m.start() + 1, line, col + m.end() + 1, new))
                continue
            if _BARE_NOQA.search(comment):
                continue
            # Another comment: the directive goes before it, so flake8 and ruff read it.
            edits.append(Edit(line, col + 1, line, col + 1, f"# noqa: {', '.join(sorted(codes))}  "))
            continue
        end = len(lines[line - 1].rstrip("\r\n"))
        edits.append(Edit(line, end + 1, line, end + 1, f"  # noqa: {', '.join(sorted(codes))}"))
    return edits


def _python_parses(text: str) -> bool:
    import ast

    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def add_noqa(text: str, codes_by_line: dict[int, set[str]], parses=_python_parses) -> tuple[str, int]:
    """The text with the directives added, and how many lines changed.

    A line whose end lies inside a string (a multi-line literal) cannot hold a
    comment; such lines are skipped, checked by re-parsing.
    """
    from jaxlint.fixes.edits import apply_edits

    edits = add_noqa_edits(text, codes_by_line)
    if not edits:
        return text, 0
    trial = apply_edits(text, edits)
    if parses(trial) and _comment_lines(trial).issuperset(e.line for e in edits):
        return trial, len(edits)
    good: list[Edit] = []
    for e in edits:
        trial = apply_edits(text, good + [e])
        if parses(trial) and _comment_lines(trial).issuperset({e.line}):
            good.append(e)
    return (apply_edits(text, good) if good else text), len(good)


def _comment_lines(text: str) -> set[int]:
    return {line for line, _, c in comments(text) if _NOQA.search(c)}
