"""Notebooks confirm from the editor server: its cells as the editor holds them (unsaved), run
together in order, with the verdict cited in the finding's cell."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from jaxlint.finding import Finding

CELLS = [("code", "import jax\n"),
         ("markdown", "# Notes\n"),
         ("code", "@jax.jit\ndef g(x):\n    if x > 0:\n        return x\n    return -x\n")]


def _json(cells) -> str:
    return json.dumps({"cells": [{"cell_type": k, "source": t} for k, t in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_server_sends_every_cell_in_order():
    pytest.importorskip("lsprotocol")
    from jaxlint.server.confirming import _notebook_json

    pub = lambda cell, text: SimpleNamespace(target="nb", cell=cell, text=text)  # noqa: E731
    ls = SimpleNamespace(published={"c1": pub(1, CELLS[0][1]), "c3": pub(3, CELLS[2][1]),
                                    "other": SimpleNamespace(target="x.py", cell=None, text="")})
    sent = json.loads(_notebook_json(ls, ls.published["c3"]))["cells"]
    assert [(c["cell_type"], c["source"]) for c in sent] == [CELLS[0], ("markdown", ""), CELLS[2]]


def test_unsaved_notebook_cells_are_confirmed(tmp_path):
    pytest.importorskip("jax")
    from jaxlint.confirm import confirm_findings

    path = str(tmp_path / "unsaved.ipynb")  # not on disk: the editor's cells are the code
    finding = Finding(path=path, line=3, col=5, end_line=3, end_col=10, code="JAX201", message="",
                      function="g", function_line=3, cell=3,
                      confirm={"kind": "trace-error", "expected": "TracerBoolConversionError"})
    (out,), _ = confirm_findings([finding], device="cpu", timeout=60.0, texts={path: _json(CELLS)})
    assert out.verdict["verdict"] == "confirmed", out.verdict
    assert "line 3" in out.verdict["summary"]
