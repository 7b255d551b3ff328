"""JAX101 in a function the program only vmaps: vmap keeps no trace cache, so its print runs
on every call. Confirm runs it under vmap as the program does (a jitted run would print once
in three calls and call the shape print a trace-time print). A print of a traced value writes
a VmapTracer: confirmed; a print of a shape writes the shape on every call: not confirmed."""

from __future__ import annotations

from pathlib import Path

import pytest

from confirm_table import marked_finding, verdicts_by_name
from jaxlint.finding import Finding

pytest.importorskip("jax")

P = str(Path(__file__).parent / "confirm_cases" / "vmapped_print.py")


def printed(marker: str, function: str) -> Finding:
    return marked_finding(P, marker, function, "JAX101", kind="print")


@pytest.fixture(scope="module")
def got():
    return verdicts_by_name({"shape": printed("DECOY shape", "show_shape"),
                             "values": printed("REAL values", "show_values"),
                             "unrun": printed("REAL unrun", "show_later")})


def test_a_vmapped_print_of_a_traced_value_is_confirmed(got):
    v = got["values"]
    assert v["verdict"] == "confirmed", v
    assert "VmapTracer" in v["record"]["output"] or "VmapTracer" in v["evidence"], v


def test_a_vmapped_print_of_a_shape_runs_on_every_call(got):
    v = got["shape"]
    assert v["verdict"] != "confirmed", v


def test_a_vmapped_print_the_program_has_not_run_yet_is_traced_under_vmap(got):
    v = got["unrun"]
    assert v["verdict"] == "confirmed", v
    assert "under vmap" in v["summary"] and "VmapTracer" in v["record"]["output"], v
