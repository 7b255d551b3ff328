"""`# noqa`, `# noqa: JAX201,JAX202` and the file-level `# jaxlint: noqa` (flake8 / ruff syntax)."""

from __future__ import annotations

import re
from typing import Optional

# flake8's pattern: codes separated by commas and/or whitespace.
_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.I)
_FILE_NOQA = re.compile(r"[ \t\f]*#\s*(?:jaxlint|flake8)\s*:\s*noqa\s*", re.I)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.I)


def file_is_exempt(text: str) -> bool:
    if not _FILE_NOQA.search(text):
        return False
    from jaxlint.source import source_lines

    # On Python's lines: re.M's `^` and `$` know only \n, not a \r-only line end.
    return any(_FILE_NOQA.fullmatch(line) for line in source_lines(text))


def noqa_codes(line: str) -> Optional[frozenset[str]]:
    """None: no noqa on this line. Empty set: a bare `# noqa` (everything)."""
    if "#" not in line:
        return None
    m = _NOQA.search(line)
    if m is None:
        return None
    codes = m.group("codes")
    if not codes:
        return frozenset()
    return frozenset(c.upper() for c in _CODE.findall(codes))


def suppressed(code: str, codes: Optional[frozenset[str]]) -> bool:
    if codes is None:
        return False
    if not codes:
        return True
    return any(code.startswith(c) for c in codes)
