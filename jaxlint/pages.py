"""Rule pages: the markdown files in the repository's `rules/` folder.

In a wheel they are packaged as `jaxlint/_pages/`; in a checkout they are read
from `rules/` beside the package.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

# jaxlint has no published documentation site: `jaxlint rule CODE` prints the page.
DOCS_BASE: Optional[str] = None


def pages_dir() -> Path:
    packaged = Path(__file__).parent / "_pages"
    if packaged.is_dir():
        return packaged
    return Path(__file__).parent.parent / "rules"


def page_path(code: str) -> Optional[Path]:
    p = pages_dir() / f"{code.upper()}.md"
    return p if p.is_file() else None


def page_text(code: str) -> Optional[str]:
    p = page_path(code)
    return p.read_text(encoding="utf-8") if p else None


def page_url(code: str) -> Optional[str]:
    """A link to the rule's page, or None: nothing is linked that does not exist."""
    return f"{DOCS_BASE}{code.upper()}.md" if DOCS_BASE else None


_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def code_blocks(text: str) -> dict[str, list[str]]:
    """Python code blocks by section: {"Example": [...], "Use instead": [...]}."""
    sections: dict[str, list[str]] = {}
    current = ""
    pos = 0
    heading = re.compile(r"^##\s+(.+?)\s*$", re.M)
    marks = [(m.start(), m.group(1)) for m in heading.finditer(text)]
    for m in _BLOCK.finditer(text):
        while marks and marks[0][0] < m.start():
            current = marks.pop(0)[1]
        sections.setdefault(current, []).append(m.group(1))
        pos = m.end()
    del pos
    return sections


def section(text: str, name: str) -> str:
    """The prose of one `## name` section."""
    m = re.search(rf"^##\s+{re.escape(name)}\s*\n(.*?)(?=^##\s|\Z)", text, re.S | re.M)
    return m.group(1).strip() if m else ""
