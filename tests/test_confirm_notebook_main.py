"""A notebook runs as `__main__` (IPython's user module): its `if __name__ == "__main__":` cells
run, so a key made there is the one later cells reuse. The same code as a script, imported,
does not run that block: the finding could not run there (nothing defined the key)."""

from __future__ import annotations

import json

import pytest

from jaxlint.config import Settings
from jaxlint.linter import lint_file

pytest.importorskip("jax")

MAIN = 'import jax\n\nif __name__ == "__main__":\n    key = jax.random.key(0)\n'
DRAWS = ("def noise():\n    a = jax.random.normal(key, (3,))\n"
         "    b = jax.random.normal(key, (3,))\n    return a + b\n\n\nnoise()\n")


def _findings(path):
    return [f for f in lint_file(str(path), Settings()).findings if f.code == "JAX501"]


def test_a_main_cell_runs_in_a_notebook_and_not_in_a_script(tmp_path):
    from jaxlint.confirm import confirm_findings

    nb = tmp_path / "main_cell.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": MAIN, "metadata": {},
                                         "outputs": [], "execution_count": None},
                                        {"cell_type": "code", "source": DRAWS, "metadata": {},
                                         "outputs": [], "execution_count": None}],
                              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    script = tmp_path / "main_block.py"
    script.write_text(MAIN + "\n\n" + DRAWS)
    found = _findings(nb) + _findings(script)
    assert [f.path.rsplit(".", 1)[1] for f in found] == ["ipynb", "py"], found
    out, _ = confirm_findings(found, device="cpu", timeout=60.0)
    in_notebook, in_script = (f.verdict for f in out)
    assert in_notebook["verdict"] == "confirmed", in_notebook
    assert "identical values" in in_notebook["summary"], in_notebook
    # Imported, the script's `__main__` block did not run: `key` is not defined.
    assert in_script["verdict"] == "could not run", in_script
    assert "NameError" in in_script["summary"] + in_script["evidence"], in_script
