"""Fixes: edits attached to findings, and the machinery that applies them.

The API an editor (a language server) needs:

- `check_source(text, path, settings)` lints source text and returns its
  findings, each with `finding.fix` (ruff's JSON shape: applicability, message,
  edits) when the rule can fix it;
- `apply_fixes(text, fixes)` applies a chosen set of `Fix`es to the text
  (`Fix.from_dict(finding.fix)`), the first of two overlapping fixes winning;
- `fix_text(text, path, settings, unsafe)` applies every applicable fix until
  none applies, re-parsing the result after each round.

`jaxlint check --fix / --unsafe-fixes / --diff` use `fix_file`, which also
handles notebooks (cells are edited in place) and writes atomically.
"""

from __future__ import annotations

from typing import Optional

from jaxlint.config import Settings
from jaxlint.finding import FileResult
from jaxlint.fixes.apply import FixResult, apply_fixes, fix_file, fix_notebook, fix_text, parses
from jaxlint.fixes.edits import (APPLICABILITIES, DISPLAY_ONLY, SAFE, UNSAFE, Edit, EditError, Fix,
                                 apply_edits)

__all__ = [
    "APPLICABILITIES", "DISPLAY_ONLY", "SAFE", "UNSAFE", "Edit", "EditError", "Fix", "FixResult",
    "apply_edits", "apply_fixes", "check_source", "fix_file", "fix_notebook", "fix_text", "parses",
]


def check_source(text: str, path: str = "<string>", settings: Optional[Settings] = None) -> FileResult:
    """Findings (with their fixes) for source text, as `jaxlint check` reports them."""
    from jaxlint.linter import lint_text

    return lint_text(text, path, settings or Settings())
