"""What a lint run produces: findings about code, diagnostics about files."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(frozen=True)
class Finding:
    path: str
    line: int  # 1-based
    col: int  # 1-based
    end_line: int
    end_col: int
    code: str
    message: str
    name: str = ""  # the rule's name, e.g. "traced-bool-conversion"
    severity: str = "error"  # "error" | "warning" | "info" (info never fails the run)
    # The traced function the finding sits in (qualified name and def line), for confirm mode.
    function: Optional[str] = None
    function_line: Optional[int] = None
    # What confirm mode should check: {"kind": "trace-error", "expected": "TracerBoolConversionError"}.
    confirm: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    # Notebook cell (1-based) when the file is a notebook; line/col are then within the cell.
    cell: Optional[int] = None
    # Confirm mode's verdict, once it ran.
    verdict: Optional[dict[str, Any]] = field(default=None, compare=False, hash=False)
    # The fix, as ruff's JSON writes it: {"applicability": "safe" | "unsafe" |
    # "display-only", "message": ..., "edits": [{"content", "location", "end_location"}]}.
    fix: Optional[dict[str, Any]] = field(default=None, compare=False, hash=False)

    @property
    def sort_key(self):
        return (self.path, self.cell or 0, self.line, self.col, self.code)


@dataclass(frozen=True)
class Diagnostic:
    """A file jaxlint could not lint: syntax error, bad encoding, unreadable, too large."""

    path: str
    message: str
    line: Optional[int] = None
    col: Optional[int] = None
    code: str = "E902"  # flake8's code for "file could not be processed"
    # Notebook cell (1-based) of a cell that could not be parsed; line/col are then within the cell.
    cell: Optional[int] = None


@dataclass
class FileResult:
    """Everything linting one file produced."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # sha256 of the bytes that were analysed (None: not read from a file). The cache
    # stores the result under this digest, so a file edited during the run is not
    # cached under the old content's hash.
    sha256: Optional[str] = None
