"""JAX404 on a pytree's metadata arrays, from the program's own import: confirmed by JAX's
ValueError at the flagged call (the equality check of a second instance's metadata), and not by
another ValueError raised at that line (tests/confirm_cases/metadata/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from confirm_table import verdicts_by_name
from jaxlint.finding import Finding

pytest.importorskip("jax")

HERE = Path(__file__).parent / "confirm_cases" / "metadata"


def at(name: str, marker: str) -> Finding:
    path = HERE / name
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if marker in t)
    return Finding(path=str(path), line=line, col=1, end_line=line, end_col=1, code="JAX404",
                   message="", function=None, function_line=None,
                   confirm={"kind": "trace-error", "expected": "ValueError"})


def test_metadata_arrays_confirmed_only_by_jaxs_comparison():
    v = verdicts_by_name({"real": at("arrays.py", "REAL metadata"),
                          "decoy": at("other_error.py", "DECOY other-error")})
    assert v["real"]["verdict"] == "confirmed", v["real"]
    assert "metadata fields" in v["real"]["evidence"], v["real"]
    assert v["decoy"]["verdict"] != "confirmed", v["decoy"]
