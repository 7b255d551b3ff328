"""Cell scripts: .py files in the percent format (`# %%` cells: VS Code, Spyder, PyCharm,
jupytext), which an IPython kernel runs cell by cell, are read as notebooks are read.

The scripts below mark their expected findings inline with `# expect: JAXNNN`, at the
file's own lines; the findings must match exactly, both ways.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.config import Settings
from jaxlint.fixes import fix_file
from jaxlint.linter import expected_findings, lint_file
from jaxlint.notebook import lint_notebook, script_cells

ROOT = Path(__file__).resolve().parent.parent

# Magics of every kind the notebook reader knows, around two real pitfalls. Line 2 is
# the first magic: as a plain module the file stops there.
EXPERIMENT = """\
#%%
%load_ext autoreload
%autoreload 2
import os
import jax
import jax.numpy as jnp

try:
    import optax
except ImportError:
    !pip install -q optax
    import optax
files = !ls
%matplotlib inline
jnp.ones?

# %% [markdown]
# Train a model: if the loss goes down then we are done.

# %%
@jax.jit
def step(x):
    if x.sum() > 0:  # expect: JAX201
        return x
    return -x


x = jnp.ones(3)
step(x)

# %% Timing
%timeit step(x)  # expect: JAX601

# %%
pip install -q flax

# %%
%%time
y = step(x)

# %%
%%bash
if [ -d data ]; then echo ok; fi
"""


def _write(tmp_path: Path, text: str, name: str = "experiment.py") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _found(path: Path, settings=None):
    result = lint_file(str(path), settings or Settings())
    return {(f.line, f.code) for f in result.findings}, result


def test_a_cell_script_with_magics_is_linted_as_its_cells(tmp_path):
    path = _write(tmp_path, EXPERIMENT)
    found, result = _found(path)
    assert result.diagnostics == []
    assert found == expected_findings(EXPERIMENT)
    # The %timeit statement is mapped back to its own columns in the file.
    (timed,) = [f for f in result.findings if f.code == "JAX601"]
    line = EXPERIMENT.splitlines()[timed.line - 1]
    assert line[timed.col - 1:timed.end_col - 1] == "step(x)"


def test_without_a_cell_marker_a_magic_is_a_syntax_error(tmp_path):
    # Python cannot run this file: it is a plain module, and its first magic is E999.
    plain = "\n".join(line for line in EXPERIMENT.splitlines() if not line.startswith(("#%%", "# %%"))) + "\n"
    found, result = _found(_write(tmp_path, plain))
    assert found == set()
    assert [(d.code, d.line) for d in result.diagnostics] == [("E999", 1)]


@pytest.mark.parametrize("marker, cell", [
    ("# %%", True), ("#%%", True), ("# %% Load the data", True), ("#%% [markdown]", True),
    ("# %% [markdown] tags=[\"hide\"]", True),
    ("    # %%", False),  # indented: a comment inside a block, no cell
    ("x = 1  # %%", False),
    ("# %", False),
])
def test_what_makes_a_cell_script(marker, cell):
    text = f"import jax\n{marker}\nx = 2\n"
    assert (script_cells(text) is not None) == cell


def test_code_under_a_markdown_marker_is_linted_and_prose_is_not(tmp_path):
    # A license header written as a markdown cell, with the whole module under it: no
    # kernel runs a markdown cell, but the code is a module's code all the same.
    text = "# %% [markdown]\n# Copyright: the authors.\n\nimport jax\nkey = jax.random.PRNGKey(0)\n" \
           "a = jax.random.normal(key)\nb = jax.random.normal(key)\nprint(a + b)\n" \
           "# %% [markdown]\nThe draws above: if they match then the key was reused.\n"
    found, result = _found(_write(tmp_path, text))
    assert found == {(7, "JAX501")}
    assert result.diagnostics == []


def test_only_a_cells_last_statement_is_displayed(tmp_path):
    # IPython shows the value of a cell's last expression: a `.at` update there is seen,
    # one before it (or in a loop) is dropped.
    text = "# %%\nimport jax.numpy as jnp\nx = jnp.zeros(3)\nx.at[0].set(1.0)\nx.at[1].set(2.0)\n\n" \
           "# %%\nx.at[2].set(3.0)\n# %%\nfor i in range(2):\n    x.at[i].set(1.0)\ny = 1; x.at[0].set(5.0)\n"
    found, _ = _found(_write(tmp_path, text), Settings(select=("JAX302",)))
    assert found == {(4, "JAX302"), (11, "JAX302")}
    # The same cells in a notebook.
    cells = [c.source for c in script_cells(text)]
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                    for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "updates.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    result = lint_notebook(str(path), Settings(select=("JAX302",)))
    assert {(f.cell, f.line) for f in result.findings} == {(1, 3), (3, 2)}


def test_a_marker_inside_a_string_is_no_marker(tmp_path):
    # Code kept in a string, markers and all, is a string: the file is one module.
    text = "import jax\n\n\"\"\"\n# %% old experiment\ndef f(:\n# %%\n\"\"\"\nx = 1\n"
    assert script_cells(text) is None
    _, result = _found(_write(tmp_path, text))
    assert result.diagnostics == []
    # A real marker before the string still makes a cell script, of two cells.
    cells = script_cells("# %%\n" + text)
    assert [c.first_line for c in cells] == [2]
    # A cell left with an open string does not hide the markers after it.
    broken = "# %%\nimport jax\n# %%\ns = \"\"\"never closed\n# %%\nx = 1\n"
    assert [c.first_line for c in script_cells(broken)] == [2, 4, 6]


def test_the_same_cells_as_a_notebook_give_the_same_findings(tmp_path):
    cells = script_cells(EXPERIMENT)
    # As jupytext writes a notebook from it: the blank lines between cells are no cell's.
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": c.source.rstrip("\n") + "\n",
                     "outputs": [], "execution_count": None} for c in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "experiment.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    in_notebook = lint_notebook(str(path), Settings())
    as_script = lint_file(str(_write(tmp_path, EXPERIMENT)), Settings())
    assert in_notebook.diagnostics == []
    # Cell c's line l is the file's line first_line + l - 1.
    first = {n: c.first_line for n, c in enumerate(cells, 1)}
    assert sorted((first[f.cell] + f.line - 1, f.col, f.code) for f in in_notebook.findings) == \
        sorted((f.line, f.col, f.code) for f in as_script.findings)


def test_a_cell_that_does_not_parse_is_skipped_alone(tmp_path):
    text = "# %%\nimport jax\n%matplotlib inline\n\n# %%\ndef broken(:\n    pass\n\n" \
           "# %%\n@jax.jit\ndef f(x):\n    return 1 if x else 0\n"
    found, result = _found(_write(tmp_path, text))
    assert found == {(12, "JAX201")}
    (d,) = result.diagnostics
    assert (d.code, d.line, d.col, d.cell) == ("E999", 6, 12, None)
    assert d.message == "SyntaxError: invalid syntax; cell skipped"


def test_messages_cite_the_files_lines(tmp_path):
    text = "# %%\nimport jax\n!nvidia-smi\nkey = jax.random.PRNGKey(0)\na = jax.random.normal(key)\n" \
           "# %%\nb = jax.random.normal(key)\nprint(a + b)\n"
    _, result = _found(_write(tmp_path, text))
    (f,) = [f for f in result.findings if f.code == "JAX501"]
    assert (f.line, f.cell) == (7, None)
    assert "line 5" in f.message and "cell" not in f.message


def test_noqa_works_in_a_cell_script(tmp_path):
    text = "# %%\n!pip install -q jax\nimport jax\n\n# %%\n@jax.jit\ndef f(x):\n" \
           "    a = 1 if x else 0  # noqa: JAX201\n    return 2 if x else 0\n" \
           "# %%\nx = jax.numpy.ones(3)\n%timeit f(x)  # noqa: JAX601\n"
    found, _ = _found(_write(tmp_path, text))
    assert found == {(9, "JAX201")}


def test_fix_rewrites_python_and_never_a_magic(tmp_path):
    text = "#%%\n%load_ext autoreload\nimport jax\nfrom jax.config import config\n" \
           "!pip install -q optax\nconfig.update('jax_enable_x64', True)\n"
    path = _write(tmp_path, text)
    result = fix_file(str(path), Settings(), unsafe=True)
    assert result.applied["JAX902"] == 1
    new = path.read_text(encoding="utf-8")
    assert "from jax.config import config" not in new
    assert [line for line in new.splitlines() if line.startswith(("%", "!"))] == \
        ["%load_ext autoreload", "!pip install -q optax"]
    assert lint_file(str(path), Settings()).diagnostics == []


def test_a_fix_that_would_touch_a_magic_is_dropped(tmp_path):
    # The timing fix wraps the work in `jax.block_until_ready`, and `jax` must be imported:
    # the import goes before the first statement that is not an import, here the `%%time`
    # line, where it would turn the cell magic into a line of the cell (IPython reads a
    # cell magic on a cell's first line only). The fix is dropped, the finding kept.
    timed = "import time\nimport jax.numpy as jnp\nfrom jax import jit\nf = jit(lambda v: v * 2)\n" \
            "x = jnp.ones(3)\nf(x)\nt0 = time.perf_counter()\ny = f(x)\nprint(time.perf_counter() - t0)\n"
    text = "%%time\n" + timed + "# %%\nprint(y)\n"
    path = _write(tmp_path, text)
    found, result = _found(path)
    assert found == {(10, "JAX601")}
    assert result.findings[0].fix is None
    assert not fix_file(str(path), Settings(), unsafe=True).changed
    # With the imports in a cell of their own, the import goes at the end of that cell,
    # before the next marker, and the fix applies: `%%time` stays its cell's first line.
    head, tail = timed.split("f = jit", 1)
    path = _write(tmp_path, "# %%\n" + head + "# %%\n%%time\nf = jit" + tail)
    fixed = fix_file(str(path), Settings(), unsafe=True)
    assert fixed.applied["JAX601"] == 1
    assert fixed.new.splitlines()[4:7] == ["import jax", "# %%", "%%time"]
    assert "y = jax.block_until_ready(f(x))" in fixed.new
    assert lint_file(str(path), Settings()).diagnostics == []


def test_the_same_fix_in_a_notebook_is_dropped_too(tmp_path):
    # Notebook cells share the fix machinery (jaxlint.notebook._fix_to_cells).
    cells = ["import time\nimport jax.numpy as jnp\nfrom jax import jit\n",
             "%%time\nf = jit(lambda v: v * 2)\nx = jnp.ones(3)\nf(x)\nt0 = time.perf_counter()\ny = f(x)\n"
             "print(time.perf_counter() - t0)\n"]
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                    for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "timed.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    (f,) = lint_notebook(str(path), Settings()).findings
    assert (f.cell, f.line, f.code, f.fix) == (2, 7, "JAX601", None)


def test_add_noqa_in_a_cell_script(tmp_path):
    text = "# %%\n!pip install -q jax\nimport jax\n\n# %%\n@jax.jit\ndef f(x):\n    return 1 if x else 0\n" \
           "x = jax.numpy.ones(3)\n%timeit f(x)\n"
    path = _write(tmp_path, text)
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--no-cache", "--add-noqa", str(path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[7].endswith("# noqa: JAX201") and lines[9] == "%timeit f(x)  # noqa: JAX601"
    assert lines[1] == "!pip install -q jax"
    assert _found(path)[0] == set()


def test_stdin_with_a_py_name_reads_a_cell_script(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--no-cache", "--output-format", "json",
                           "--stdin-filename", "experiment.py", "-"],
                          input=EXPERIMENT, capture_output=True, text=True, cwd=ROOT)
    items = json.loads(proc.stdout)
    assert {(i["location"]["row"], i["code"]) for i in items} == expected_findings(EXPERIMENT)


def test_ipython_runs_each_cell():
    # Each code cell, as the script's reader cuts it, is a cell IPython itself accepts.
    import ast

    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    shell = interactiveshell.InteractiveShell.instance()
    cells = script_cells(EXPERIMENT)
    assert [c.first_line for c in cells] == [2, 18, 21, 32, 35, 38]  # no %%bash cell
    for cell in cells:
        ast.parse(shell.transform_cell(cell.source.rstrip("\n") + "\n"))


def test_confirm_runs_the_cells_python(tmp_path):
    # Confirm mode runs a cell script as a kernel does: the cells' Python at the file's lines
    # (the magics skipped), a cell at a time, as `__main__`, so the `if __name__` cell's key
    # is the one the next cell reuses, and the jitted `if` raises at its own line.
    pytest.importorskip("jax")
    from jaxlint.confirm import confirm_findings

    text = "# %%\n%load_ext autoreload\nimport jax\n!nvidia-smi\n\nif __name__ == \"__main__\":\n" \
           "    key = jax.random.key(0)\n\n# %%\ndef noise():\n    a = jax.random.normal(key, (3,))\n" \
           "    b = jax.random.normal(key, (3,))\n    return a + b\n\n\nnoise()\n\n# %%\n@jax.jit\n" \
           "def f(x):\n    return 1 if x.sum() > 0 else 0\n\n\nf(jax.numpy.ones(3))\n"
    path = _write(tmp_path, text)
    found = sorted(lint_file(str(path), Settings()).findings, key=lambda f: f.line)
    assert [(f.line, f.code) for f in found] == [(12, "JAX501"), (21, "JAX201")]
    out, _ = confirm_findings(found, device="cpu", timeout=60.0)
    draws, branch = (f.verdict for f in out)
    assert draws["verdict"] == "confirmed" and "identical values" in draws["summary"], draws
    assert branch["verdict"] == "confirmed" and "line 21" in branch["summary"], branch
