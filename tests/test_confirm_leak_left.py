"""JAX102 in a method jitted with `self` static, on an instance the program builds with
constructor arguments: the tracer the program's own call stored is read from the program's
`trainer` after the import (confirm builds no `self`, traces nothing). The decoy method writes
the same attribute with a NumPy array: the attribute holds a tracer afterwards, but one made
by the other method's trace, which says nothing about this line."""

from __future__ import annotations

from pathlib import Path

import pytest

from confirm_table import verdicts_by_name
from jaxlint.finding import Finding

pytest.importorskip("jax")

P = str(Path(__file__).parent / "confirm_cases" / "leak_left.py")
LINES = Path(P).read_text().splitlines()


def stored(marker: str, method: str) -> Finding:
    line = next(i for i, text in enumerate(LINES, 1) if marker in text)
    fline = next(i for i, text in enumerate(LINES, 1) if f"def {method}(" in text)
    return Finding(path=P, line=line, col=1, end_line=line, end_col=1, code="JAX102",
                   message="", function=f"Trainer.{method}", function_line=fline,
                   confirm={"kind": "leak", "place": "self", "attr_name": "params"})


@pytest.fixture(scope="module")
def got():
    return verdicts_by_name({"real": stored("REAL the traced product", "step"),
                             "decoy": stored("DECOY a NumPy array", "reset")})


def test_a_tracer_the_program_left_in_its_object_is_confirmed(got):
    v = got["real"]
    assert v["verdict"] == "confirmed", v
    assert v["record"]["where"] == "trainer.params", v
    assert v["record"]["reported_by"] == "the program's own run", v


def test_a_tracer_another_method_stored_is_not_this_lines(got):
    v = got["decoy"]
    assert v["verdict"] != "confirmed", v
