"""What the worker process runs: the CLI's configuration, linter and fixes on editor text.

Nothing here is the server's own analysis. Settings come from the nearest
pyproject.toml exactly as `jaxlint check` reads them; findings from `lint_text`
(notebooks: `notebook.lint_notebook`, cells together; cell scripts: `linter.lint_python`,
as cells, without the incremental state); fix-all from `fix_text` /
`fix_notebook`, the code of `--fix`. What is kept between calls is each
document's `incremental.Document`: its parsed top-level statements and its last
findings, so that an edit re-analyses only the statements it touched and those linked
to them, with the findings of a full run.
"""

from __future__ import annotations

import json
from typing import Optional, Union

from jaxlint import notebook, processes
from jaxlint.config import ConfigError, Settings, load_settings
from jaxlint.finding import Diagnostic, FileResult
from jaxlint.incremental import Document

# A notebook as the server holds it: (cell kind "code" | "markdown", text) per cell, in order.
Cells = list[tuple[str, str]]


def settings_for(path: str) -> Union[Settings, Diagnostic]:
    """The settings `jaxlint check PATH` would use, or the configuration error as a diagnostic."""
    from jaxlint.service import with_target  # the CLI's resolution of target-jax-version

    try:
        return with_target(load_settings(path))
    except ConfigError as exc:
        return Diagnostic(path, f"configuration error: {exc}", code="E902")


def notebook_bytes(cells: Cells) -> bytes:
    """The cells as an .ipynb file, for the CLI's notebook reader."""
    nb = {"cells": [{"cell_type": kind, "metadata": {}, "source": text,
                     **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                    for kind, text in cells],
          "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb).encode("utf-8")


class Analysis:
    """The worker's state: per open document, its incremental state."""

    def __init__(self) -> None:
        self._documents: dict[str, Document] = {}

    def ping(self) -> str:
        return "pong"

    def lint(self, key: str, path: str, text: str) -> FileResult:
        settings = settings_for(path)
        if isinstance(settings, Diagnostic):
            return FileResult(path, diagnostics=[settings])
        if settings.is_excluded(path):
            return FileResult(path)
        processes.cap_memory(settings.memory_limit)
        try:
            if notebook.script_cells(text) is not None:  # a cell script: its cells, as `jaxlint check` reads them
                from jaxlint.linter import lint_python

                self._documents.pop(key, None)
                return lint_python(text, path, settings)
            return self._documents.setdefault(key, Document()).lint(text, path, settings)
        except MemoryError:
            self._documents.pop(key, None)
            return FileResult(path, diagnostics=[Diagnostic(path, processes.memory_message(settings.memory_limit))])

    def lint_notebook(self, path: str, cells: Cells) -> FileResult:
        from jaxlint.notebook import lint_notebook

        settings = settings_for(path)
        if isinstance(settings, Diagnostic):
            return FileResult(path, diagnostics=[settings])
        if settings.is_excluded(path):
            return FileResult(path)
        return lint_notebook(path, settings, notebook_bytes(cells))

    def fix_all(self, key: str, path: str, text: str) -> Optional[str]:
        """The text after every safe fix (`jaxlint check --fix`), or None when nothing applies."""
        from jaxlint.fixes import fix_text
        from jaxlint.linter import lint_text

        settings = settings_for(path)
        if isinstance(settings, Diagnostic) or settings.is_excluded(path):
            return None
        if notebook.script_cells(text) is not None:
            result = fix_text(text, path, settings, unsafe=False)  # linted as cells, as `--fix` does
        else:
            pieces = self._documents.setdefault(key, Document()).pieces
            result = fix_text(text, path, settings, unsafe=False,
                              lint=lambda t: lint_text(t, path, settings, pieces=pieces))
        return result.new if result.changed else None

    def fix_all_notebook(self, path: str, cells: Cells) -> dict[int, str]:
        """Per changed cell (1-based, every cell counted), its text after every safe fix."""
        from jaxlint.fixes import fix_notebook

        settings = settings_for(path)
        if isinstance(settings, Diagnostic) or settings.is_excluded(path):
            return {}
        result = fix_notebook(path, settings, unsafe=False, write=False, data=notebook_bytes(cells))
        if isinstance(result, Diagnostic):
            return {}
        return {n: new for n, (_, new) in result.cells.items()}

    def settle(self) -> None:
        """Work the next edit will need, done after the reply: each document's index of
        its last full run (`incremental.Document.settle`)."""
        for key, document in list(self._documents.items()):
            try:
                document.settle()
            except (Exception, MemoryError):  # noqa: BLE001 - the next edit runs in full
                self._documents.pop(key, None)

    def forget(self, key: str) -> None:
        self._documents.pop(key, None)
