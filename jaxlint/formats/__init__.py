"""Output formats. Each is a function `render(findings, diagnostics, ctx) -> str`.

A format sits at the edge: it only reads `Finding`s and `Diagnostic`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from jaxlint.finding import Diagnostic, Finding


@dataclass
class FormatContext:
    """What a format may need besides the findings."""

    # Source text of each file, for snippets (full format).
    sources: dict[str, str] = field(default_factory=dict)
    # The repository root, for relative URIs (SARIF).
    root: str = "."
    # Confirm mode's device, when it ran.
    device: Optional[str] = None
    color: bool = False


Renderer = Callable[[list[Finding], list[Diagnostic], FormatContext], str]

FORMATS: dict[str, Renderer] = {}


def register(name: str):
    def deco(fn: Renderer) -> Renderer:
        FORMATS[name] = fn
        return fn
    return deco


def rule_url(code: str) -> Optional[str]:
    from jaxlint.pages import page_url

    return page_url(code)


def verdict_suffix(f: Finding) -> str:
    """` [confirmed: TracerBoolConversionError at line 12]` once confirm mode ran."""
    if not f.verdict:
        return ""
    v = f.verdict
    evidence = v.get("summary") or v.get("evidence") or ""
    return f" [{v.get('verdict')}: {evidence}]" if evidence else f" [{v.get('verdict')}]"


def display_path(f) -> str:
    """`nb.ipynb:cell 3` for notebook cells, else the path."""
    cell = getattr(f, "cell", None)
    return f"{f.path}:cell {cell}" if cell else f.path


# Register the built-in formats.
from jaxlint.formats import concise, full, json_format  # noqa: E402,F401
for _optional in ("github", "sarif", "json_lines"):
    try:
        __import__(f"jaxlint.formats.{_optional}")
    except ModuleNotFoundError:  # pragma: no cover - added by later work
        pass
