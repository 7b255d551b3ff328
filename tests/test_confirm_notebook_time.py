"""A notebook whose time runs out before the flagged code's cell runs: "could not run" says so
(the time limit), not what the recipe then lacked (the function was never defined)."""

from __future__ import annotations

import json

import pytest

from jaxlint.config import Settings
from jaxlint.linter import lint_file

pytest.importorskip("jax")

SLOW = "import time\nimport jax\n"
SLEEP = "time.sleep(30)\n"
PRINTS = "@jax.jit\ndef f(x):\n    print(x)\n    return x + 1\n\n\nf(1.0)\nf(2.0)\n"


def _cells(*sources):
    return json.dumps({"cells": [{"cell_type": "code", "source": s, "metadata": {}, "outputs": [],
                                  "execution_count": None} for s in sources],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_cell_the_notebooks_time_never_reached_is_could_not_run_for_time(tmp_path):
    from jaxlint.confirm import confirm_findings

    slow = tmp_path / "slow.ipynb"
    slow.write_text(_cells(SLOW, SLEEP, SLEEP, SLEEP, PRINTS))
    quick = tmp_path / "quick.ipynb"  # the same print, reached: confirmed
    quick.write_text(_cells(SLOW, PRINTS))
    found = [f for p in (slow, quick) for f in lint_file(str(p), Settings()).findings
             if f.code == "JAX101"]
    assert len(found) == 2, found
    # Each slow cell is stopped after a third of the notebook's time: the three spend it all.
    out, _ = confirm_findings(found, device="cpu", timeout=8.0)
    late, reached = (f.verdict for f in out)
    assert late["verdict"] == "could not run", late
    assert late["record"]["why"] == "time", late
    assert late["summary"] == "the notebook's time limit was spent before this cell ran", late
    assert reached["verdict"] == "confirmed", reached
