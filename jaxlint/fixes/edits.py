"""Edits and fixes, and the one place that applies edits to text.

An `Edit` replaces the text between two positions (1-based line and column,
end exclusive, as findings report them) with `content`; an insertion has
equal start and end. A `Fix` is the edits of one finding, applied all
together or not at all, with ruff's applicability:

- "safe": the program means the same after the fix; `--fix` applies it.
- "unsafe": behaviour may change; only `--unsafe-fixes` applies it.
- "display-only": a suggestion shown with the finding, never applied.

A fix travels in a `Finding` as the JSON object ruff's output uses
(`Fix.to_dict()`), so it survives the cache and worker processes unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

SAFE = "safe"
UNSAFE = "unsafe"
DISPLAY_ONLY = "display-only"
APPLICABILITIES = (SAFE, UNSAFE, DISPLAY_ONLY)


@dataclass(frozen=True, order=True)
class Edit:
    line: int
    col: int
    end_line: int
    end_col: int
    content: str = ""
    # The notebook cell the position is in (positions are then within the cell).
    cell: Optional[int] = None

    @property
    def start(self) -> tuple[int, int]:
        return (self.line, self.col)

    @property
    def end(self) -> tuple[int, int]:
        return (self.end_line, self.end_col)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "content": self.content,
            "location": {"row": self.line, "column": self.col},
            "end_location": {"row": self.end_line, "column": self.end_col},
        }
        if self.cell is not None:
            d["cell"] = self.cell
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Edit":
        return cls(int(d["location"]["row"]), int(d["location"]["column"]),
                   int(d["end_location"]["row"]), int(d["end_location"]["column"]),
                   str(d["content"]), d.get("cell"))


@dataclass(frozen=True)
class Fix:
    applicability: str
    message: str
    edits: tuple[Edit, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"applicability": self.applicability, "message": self.message,
                "edits": [e.to_dict() for e in self.edits]}

    @classmethod
    def from_dict(cls, d: Optional[dict[str, Any]]) -> Optional["Fix"]:
        """A fix from a finding's JSON object (None when absent or malformed)."""
        if not isinstance(d, dict):
            return None
        try:
            app = d["applicability"]
            if app not in APPLICABILITIES:
                return None
            return cls(app, str(d.get("message") or ""),
                       tuple(Edit.from_dict(e) for e in d.get("edits") or ()))
        except (KeyError, TypeError, ValueError):
            return None

    def applies(self, unsafe: bool) -> bool:
        """Whether `--fix` (and `--unsafe-fixes` when `unsafe`) applies it."""
        if not self.edits:
            return False
        return self.applicability == SAFE or (unsafe and self.applicability == UNSAFE)


class EditError(ValueError):
    """Edits that overlap or fall outside the text."""


def _offsets(text: str) -> list[int]:
    """The offset of the start of each line (1-based index), plus the end."""
    starts = [0, 0]
    pos = 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


def _offset(starts: list[int], text: str, line: int, col: int) -> int:
    if not 1 <= line < len(starts):
        raise EditError(f"line {line} is outside the text")
    off = starts[line] + col - 1
    if off > len(text):
        raise EditError(f"column {col} of line {line} is outside the text")
    return off


def _newline(text: str) -> str:
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply edits to text. The one place jaxlint changes code.

    Edits must not overlap; identical edits count once. New lines in inserted
    code follow the text's own line endings.
    """
    starts = _offsets(text)
    nl = _newline(text)
    spans = []
    for e in sorted(set(edits)):
        a = _offset(starts, text, e.line, e.col)
        b = _offset(starts, text, e.end_line, e.end_col)
        if b < a:
            raise EditError("an edit ends before it starts")
        content = e.content.replace("\r\n", "\n").replace("\n", nl) if nl != "\n" else e.content
        spans.append((a, b, content))
    spans.sort(key=lambda s: (s[0], s[1]))
    for (a1, b1, _), (a2, b2, _) in zip(spans, spans[1:]):
        if a2 < b1 or (a1 == a2 == b1 == b2):
            raise EditError("edits overlap")
    out = []
    pos = 0
    for a, b, content in spans:
        out.append(text[pos:a])
        out.append(content)
        pos = b
    out.append(text[pos:])
    return "".join(out)


def overlaps(a: Iterable[Edit], b: Iterable[Edit]) -> bool:
    """Whether two fixes' edits touch the same text (identical edits do not count)."""
    b = [e for e in b]
    for x in a:
        for y in b:
            if x == y or x.cell != y.cell:
                continue
            if x.start == y.start and (x.start == x.end or y.start == y.end):
                return True  # two insertions at one point: order would be arbitrary
            if x.start < y.end and y.start < x.end:
                return True
    return False


def choose(fixes: Iterable[Fix]) -> list[Fix]:
    """A set of fixes whose edits do not overlap, in the given order (first wins)."""
    chosen: list[Fix] = []
    for fix in fixes:
        if any(overlaps(fix.edits, c.edits) for c in chosen):
            continue
        chosen.append(fix)
    return chosen
