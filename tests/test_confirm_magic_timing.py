"""JAX601 on `%time` / `%timeit` lines of a notebook: IPython reads the clock when the statement
returns, so the evidence is a jax array the statement bound that was still computing then.
Before, the marker line "read no clock" and was reported as not reproduced without running."""

from __future__ import annotations

import json

import pytest

from jaxlint.config import Settings
from jaxlint.finding import Finding
from jaxlint.linter import lint_file

pytest.importorskip("jax")

CELLS = [
    "import jax.numpy as jnp\na = jnp.ones((1500, 1500))",
    "%time x = jnp.dot(a, a)",  # REAL: x is still computing when the clock stops
    "%time y = jnp.dot(a, a).block_until_ready()",  # DECOY: waited for inside the timer
    "%timeit -n 3 jnp.dot(a, a)",  # its value is dropped: nothing to observe
]


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    from jaxlint.confirm import confirm_findings

    path = tmp_path_factory.mktemp("magic") / "timed.ipynb"
    path.write_text(json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                   "source": src} for src in CELLS],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    found = [f for f in lint_file(str(path), Settings(select=("JAX601",))).findings]
    assert sorted(f.cell for f in found) == [2, 4]
    # The rule does not flag the waited-for statement: a finding made by hand, as a rule
    # firing on the wrong line would make it.
    decoy = Finding(path=str(path), line=1, col=1, end_line=1, end_col=40, code="JAX601",
                    message="", cell=3, confirm={"kind": "timing"})
    out, _ = confirm_findings(found + [decoy], device="cpu", timeout=60.0)
    return {f.cell: f.verdict for f in out}


def test_time_magic_in_flight_is_confirmed(verdicts):
    # A 1500x1500 matmul on CPU takes far longer than returning from the dispatch.
    v = verdicts[2]
    assert v["verdict"] == "confirmed", v
    assert "x still computing" in v["summary"]


def test_time_magic_waited_for_is_not_confirmed(verdicts):
    v = verdicts[3]
    assert v["verdict"] == "not reproduced", v
    assert "ready" in v["summary"]


def test_timeit_of_a_dropped_value_could_not_run_and_says_why(verdicts):
    v = verdicts[4]
    assert v["verdict"] == "could not run", v
    assert "keeps no value" in v["summary"]


TIMEIT = '''import timeit
import jax.numpy as jnp

a = jnp.ones((1500, 1500))
t_async = timeit.repeat(lambda: jnp.dot(a, a), number=1, repeat=3)  # REAL
t_sync = timeit.repeat(lambda: jnp.dot(a, a).block_until_ready(), number=1, repeat=3)  # DECOY
'''


@pytest.fixture(scope="module")
def timeit_verdicts(tmp_path_factory):
    """timeit reads the clock when the lambda returns: the lambda's own return value, as the
    program's run returned it, is the evidence."""
    from jaxlint.confirm import confirm_findings

    path = tmp_path_factory.mktemp("timeit") / "timed.py"
    path.write_text(TIMEIT)
    found = lint_file(str(path), Settings(select=("JAX601",))).findings
    assert [f.line for f in found] == [5]
    decoy = Finding(path=str(path), line=6, col=1, end_line=6, end_col=80, code="JAX601",
                    message="", confirm={"kind": "timing"})
    out, _ = confirm_findings(found + [decoy], device="cpu", timeout=60.0)
    return {f.line: f.verdict for f in out}


def test_timeit_of_a_lambda_in_flight_is_confirmed(timeit_verdicts):
    v = timeit_verdicts[5]
    assert v["verdict"] == "confirmed", v
    assert "3 time(s)" in v["evidence"]


def test_timeit_of_a_waited_lambda_is_not_confirmed(timeit_verdicts):
    v = timeit_verdicts[6]
    assert v["verdict"] == "not reproduced", v
