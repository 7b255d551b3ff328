"""JAX601 from the program's own timers: confirmed only when the work still computing at the
clock is a real share of what the timer measured (timing.MISSED_SHARE of it, and
timing.MISSED_FLOOR_US at least), never because some work, however little, was in flight.

The interval the timer measured is read from the program's run (the clock read that started
it is watched, the rule's `start_line`); the work the clock missed is what the arrays still
computing took to finish, in CPU time at most (a loaded machine's wait for a core is not work).
Cases: tests/confirm_cases/timing_share.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.config import Settings
from jaxlint.linter import lint_file

pytest.importorskip("jax")

P = str(Path(__file__).parent / "confirm_cases" / "timing_share.py")


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(Path(P).read_text().splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def got():
    from jaxlint.confirm import confirm_findings

    found = lint_file(P, Settings(select=("JAX601",))).findings
    out, _ = confirm_findings(found, device="cpu", timeout=120.0)
    return {f.line: f.verdict for f in out}


def test_the_rule_flags_every_timer_here(got):
    for marker in ("DECOY tiny:", "DECOY share", "REAL: the product", "DECOY tiny lambda",
                   "REAL lambda"):
        assert line_of(marker) in got, marker


def test_a_product_still_computing_at_the_clock_is_confirmed(got):
    v = got[line_of("REAL: the product")]
    assert v["verdict"] == "confirmed", v
    r = v["record"]
    assert r["measured_us"] > 0, v  # the timer's own interval, from its start line
    assert r["missed_us"] >= 1000 and r["missed_us"] >= 0.1 * r["measured_us"], v
    assert "of what it measured" in v["evidence"], v


def test_a_timed_lambda_leaving_its_product_computing_is_confirmed(got):
    v = got[line_of("REAL lambda")]
    assert v["verdict"] == "confirmed", v
    assert v["record"]["missed_us"] >= 1000, v


def test_a_small_product_pending_after_a_big_one_waited_for_is_not_reproduced(got):
    # A 1000x1000 product (tens of ms) still computing when the timer stops, after a waited
    # 3000x3000 one (27 times the work): the clock missed a few percent of what it measured.
    v = got[line_of("DECOY share")]
    assert v["verdict"] == "not reproduced", v
    r = v["record"]
    assert r["in_flight"], v  # the work was in flight: the share decided, not its absence
    assert r["work_us"] >= 1000, v  # and more than the floor: the share decided alone
    assert "under 10% of it" in v["summary"], v
    assert f"of the {r['measured_us'] / 1000:.1f} ms measured" in v["summary"], v


def test_microseconds_pending_on_a_tiny_jitted_call_are_not_reproduced(got):
    # A jitted polynomial of 30,000 numbers, timed twenty times, by hand and with timeit: in
    # some runs it is still computing at the clock, for well under a millisecond.
    for marker in ("DECOY tiny:", "DECOY tiny lambda"):
        v = got[line_of(marker)]
        assert v["verdict"] == "not reproduced", (marker, v["evidence"], v["summary"])
        if v["record"]["in_flight"]:
            assert "under 1.0 ms" in v["summary"], (marker, v)
