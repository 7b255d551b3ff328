"""JAX402 at an eager lax.scan / while_loop / cond: the loop compiles itself (`jit(scan)`)
when called outside jit, once per new function object. Confirm counts, per call the program
makes at the line, the loop's own compiles, and confirms only compiles of the same
computation (the functions' code and bound values, the operands' shapes) with new function
objects, in most of at least two calls. Each decoy compiles, or would under a recipe that
called the function again, without a fresh function being the cause."""

from __future__ import annotations

from pathlib import Path

import pytest

from confirm_table import marked_finding, verdicts_by_name
from jaxlint.finding import Finding

pytest.importorskip("jax")

P = str(Path(__file__).parent / "confirm_cases" / "eager_lax.py")


def fresh(marker: str, function: str) -> Finding:
    return marked_finding(P, marker, function, "JAX402", kind="recompile")


@pytest.fixture(scope="module")
def got():
    return verdicts_by_name({"decay": fresh("REAL fresh body", "decay"),
                             "grow": fresh("DECOY new shapes", "grow"),
                             "steady": fresh("DECOY steady", "steady"),
                             "once": fresh("DECOY called once", "once"),
                             "cleared": fresh("DECOY cleared caches", "cleared")})


def test_a_fresh_scan_body_per_call_is_confirmed(got):
    v = got["decay"]
    assert v["verdict"] == "confirmed", v
    assert v["record"]["kind"] == "compile-count" and v["record"]["compiles"] == 4, v


def test_compiles_for_new_shapes_are_not_a_fresh_function(got):
    # The same body with a longer input on each call compiles 4 times in 4 calls.
    v = got["grow"]
    assert v["verdict"] == "not reproduced", v


def test_other_lines_compiles_are_not_counted_at_this_line(got):
    # decay and grow compile jit(scan) on every pass; this line's scan compiled once.
    v = got["steady"]
    assert v["verdict"] == "not reproduced", v
    assert v["record"]["compiles"] <= 1, v


def test_a_body_made_once_is_not_called_again(got):
    # One call by the program: a second call (by the recipe) would compile again.
    v = got["once"]
    assert v["verdict"] == "not reproduced", v


def test_compiles_after_the_program_clears_the_caches_are_not_a_fresh_function(got):
    v = got["cleared"]
    assert v["verdict"] == "not reproduced", v
