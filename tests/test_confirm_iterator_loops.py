"""JAX105 in a lax.fori_loop / scan body the program runs itself: confirmed from the program's
own loop call (the iterations it asked for against the runs of the flagged line during that
call), never from a call the recipe makes; the line must read an item (a call of next there,
seen as it ran). Decoys: a loop that indexes an array (traced once too, but reading no
iterator: a guard on the run count alone confirms it), and a one-iteration loop, whose single run of
the body reads the one item it needs (a recipe comparing jit with jax.disable_jit on a loop
it sized itself would "confirm" it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from confirm_table import verdicts_by_name
from jaxlint.finding import Finding
from jaxlint.linter import lint_string

pytest.importorskip("jax")

P = str(Path(__file__).parent / "confirm_cases" / "iterator_loops.py")


@pytest.fixture(scope="module")
def got():
    text = Path(P).read_text()
    marks = {i: line.split("# ")[-1] for i, line in enumerate(text.splitlines(), 1) if "# " in line}
    findings = {marks.get(f.line, str(f.line)): f
                for f in lint_string(text, path=P, select=["JAX105"])}
    # Not a lint finding: the loop indexes an array. A finding of the rule at its line (as
    # the rule page's Use-instead decoys make) must not be confirmed by the run-count alone.
    line = next(i for i, m in marks.items() if m.startswith("DECOY indexed"))
    findings["DECOY indexed: reads no iterator"] = Finding(
        path=P, line=line, col=1, end_line=line, end_col=1, code="JAX105", message="decoy",
        function="<lambda>", function_line=line, confirm=dict(findings["REAL ten iterations"].confirm))
    return verdicts_by_name(findings)


def test_a_fori_loop_body_read_once_for_ten_iterations(got):
    v = got["REAL ten iterations"]
    assert v["verdict"] == "confirmed", v
    assert v["record"]["kind"] == "traced-once", v
    assert (v["record"]["iterations"], v["record"]["runs"]) == (10, 1), v


def test_a_scan_body_read_once_for_five_steps(got):
    v = got["REAL scan: five steps"]
    assert v["verdict"] == "confirmed", v
    assert (v["record"]["iterations"], v["record"]["runs"]) == (5, 1), v


def test_a_one_iteration_loop_reuses_nothing(got):
    v = got["DECOY one iteration"]
    assert v["verdict"] == "not reproduced", v
    assert (v["record"]["iterations"], v["record"]["runs"]) == (1, 1), v


def test_a_body_traced_once_that_reads_no_iterator(got):
    v = got["DECOY indexed: reads no iterator"]
    assert v["verdict"] == "not reproduced", v
    assert v["record"]["reads"] == 0, v


def test_a_lambda_made_elsewhere_and_called_in_a_scan_body(got):
    # `lambda: next(it)` returned by a helper and called from the scan body: its line runs
    # while the body is traced, once for the four steps (could not run before: the loop watch
    # looked for the flagged line in the body's own code only).
    v = got["REAL helper lambda: made here, called in the scan body"]
    assert v["verdict"] == "confirmed", v
    assert (v["record"]["iterations"], v["record"]["runs"], v["record"]["reads"]) == (4, 1, 1), v


def test_the_same_lambda_in_a_loop_run_without_jit_reads_each_iteration(got):
    v = got["DECOY eager loop: each iteration reads its own item"]
    assert v["verdict"] == "not reproduced", v
    assert (v["record"]["iterations"], v["record"]["runs"], v["record"]["reads"]) == (4, 4, 4), v
