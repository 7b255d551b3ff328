"""JAX403 under eqx.filter_jit: equinox compiles through its own cached jax.jit, whose function
lives in equinox's files, so JAX logs no cache miss for it. Confirm counts the compile events
of the finding's function fired while the flagged line was on the stack. The decoy line calls
the same function with one unchanging int: the function recompiles 5 more times in the run (at the
other line), never at this one."""

from __future__ import annotations

from pathlib import Path

import pytest

from confirm_table import verdicts_by_name
from jaxlint.finding import Finding

pytest.importorskip("jax")
pytest.importorskip("equinox")

P = str(Path(__file__).parent / "confirm_cases" / "eqx_static.py")
LINES = Path(P).read_text().splitlines()


def static_call(marker: str) -> Finding:
    line = next(i for i, text in enumerate(LINES, 1) if marker in text)
    return Finding(path=P, line=line, col=1, end_line=line, end_col=1, code="JAX403",
                   message="", confirm={"kind": "recompile", "static_arg": "n",
                                        "fun_name": "filter_jit(shift)"})


@pytest.fixture(scope="module")
def got():
    return verdicts_by_name({"real": static_call("REAL a new int"),
                             "decoy": static_call("DECOY the same int")})


def test_a_new_static_int_per_call_of_a_filter_jit_function_is_confirmed(got):
    v = got["real"]
    assert v["verdict"] == "confirmed", v
    # 5 of 6: step 1 finds n=1 compiled by the other line.
    assert v["record"]["compiles"] == 5, v


def test_compiles_asked_at_another_line_are_not_counted(got):
    v = got["decoy"]
    assert v["verdict"] == "not reproduced", v
    assert v["summary"].startswith("1 compile for 6 calls"), v
