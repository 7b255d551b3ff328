"""Notebooks: the seed tutorials' pitfalls are flagged in their cells, the rest is clean.

Every `.ipynb` under fixtures/notebooks/ marks its expected findings inline, per
cell, with `# expect: JAXNNN`; the findings must match exactly, both ways.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.config import Settings
from jaxlint.linter import expected_findings, lint_file
from jaxlint.notebook import lint_notebook

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "fixtures" / "notebooks").glob("*.ipynb"))


def _expected(path: Path) -> set[tuple[int, int, str]]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = set()
    for number, cell in enumerate(nb["cells"], 1):  # every cell counts, as in ruff
        if cell["cell_type"] == "code":
            for line, code in expected_findings("".join(cell["source"])):
                out.add((number, line, code))
    return out


def _notebook(tmp_path, *cells, name="nb.ipynb", metadata=None) -> Path:
    """A notebook file; a cell is code unless given as ("markdown", text)."""
    out = []
    for c in cells:
        kind, src = c if isinstance(c, tuple) else ("code", c)
        cell = {"cell_type": kind, "metadata": {}, "source": src.splitlines(True)}
        if kind == "code":
            cell.update(outputs=[], execution_count=None)
        out.append(cell)
    path = tmp_path / name
    path.write_text(json.dumps({"cells": out, "metadata": metadata or {}, "nbformat": 4,
                                "nbformat_minor": 5}), encoding="utf-8")
    return path


def _found(path, settings=None):
    result = lint_notebook(str(path), settings or Settings())
    return {(f.cell, f.line, f.code) for f in result.findings}, result


def test_there_are_seed_notebooks():
    assert len(NOTEBOOKS) == 5
    assert all(_expected(p) for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_seed_notebook_findings_match_markers(path):
    found, result = _found(path)
    assert result.diagnostics == []
    expected = _expected(path)
    assert found - expected == set(), "unexpected findings (cell, line, code)"
    assert expected - found == set(), "missed findings (cell, line, code)"


def test_cells_run_together_in_order(tmp_path):
    # The import in cell 2 and the jit in cell 4 are seen by the function in cell 3.
    path = _notebook(
        tmp_path,
        ("markdown", "# Title"),
        "import jax\n",
        "def relu(x):\n    if x > 0:\n        return x\n    return 0.0 * x\n",
        "fast = jax.jit(relu)\nfast(1.0)\n")
    found, _ = _found(path)
    assert found == {(3, 2, "JAX201")}


def test_concise_and_json_show_the_cell(tmp_path):
    path = _notebook(tmp_path, ("markdown", "intro"), "import jax\n\n@jax.jit\ndef f(x):\n    return 1 if x else 0\n")
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", "concise", str(path)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"{path}:cell 2:5:17: JAX201 "), proc.stdout
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", "json", str(path)],
                          capture_output=True, text=True, cwd=tmp_path)
    (item,) = json.loads(proc.stdout)
    assert (item["cell"], item["location"], item["end_location"]) == (
        2, {"row": 5, "column": 17}, {"row": 5, "column": 18})


def test_magics_and_shell_lines_keep_line_numbers(tmp_path):
    path = _notebook(
        tmp_path,
        "import jax\n%matplotlib inline\n!pip install -q optax\nfiles = !ls\njax.jit?\n",
        "%%bash\necho 'if [ $x ]; then' && exit 1\n",
        "%%time\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n",
        "%timeit -n 3 -r 2 jax.jit(lambda v: 1 if v > 0 else 0)(1.0)\n",
        "%%writefile helper.py\nimport jax\n@jax.jit\ndef g(x):\n    if x:\n        return 1\n",
    )
    found, result = _found(path)
    assert result.diagnostics == []
    # The %%bash and %%writefile cells are skipped; the %%time body and the %timeit
    # statement are linted, at their own lines and columns; the %timeit times
    # dispatch only (JAX601).
    assert found == {(3, 4, "JAX201"), (4, 1, "JAX201"), (4, 1, "JAX601")}
    (timeit,) = [f for f in result.findings if f.cell == 4 and f.code == "JAX201"]
    src = "%timeit -n 3 -r 2 jax.jit(lambda v: 1 if v > 0 else 0)(1.0)"
    assert src[timeit.col - 1:timeit.end_col - 1] == "v > 0"
    (timed,) = [f for f in result.findings if f.code == "JAX601"]
    assert src[timed.col - 1:timed.end_col - 1] == "jax.jit(lambda v: 1 if v > 0 else 0)(1.0)"


def test_time_magic_on_the_first_call_of_a_fresh_jit(tmp_path):
    # Cells run in order: `%time` of the first call of a function jitted in an earlier
    # cell holds its compile (synchronous) and is not reported; the second call, and
    # `%timeit` (warm repeats), time the dispatch only. A static-argument program of
    # Python builtins returns a constant: nothing to wait for.
    path = _notebook(
        tmp_path,
        "import jax\nimport jax.numpy as jnp\nfrom jax import jit\n",
        "def sum_squares_jax(start, end):\n    return jax.lax.fori_loop(start, end, lambda i, t: t + i ** 2, 0)\n"
        "\ndef sum_squares(start, end):\n    total = 0\n    for i in range(10):\n        total += i ** 2\n"
        "    return total\n",
        "sum_squares_jax(0, 10)\n",
        "fast = jax.jit(sum_squares_jax)\nfast_py = jax.jit(sum_squares, static_argnums=(0, 1))\nx = 10000\n",
        "%time r = fast(0, x)\n",
        "%time r = fast(0, x)\n",
        "%time r = fast_py(0, x)\n",
        "%time r = fast_py(0, x)\n",
        "%timeit fast(0, x)\n",
        "def enc(p, x):\n    return jnp.tanh(x @ p)\np = jnp.ones((10, 10))\n",
        "%time z = jit(enc)(p, p[0:10])\n",
        "init, apply = (lambda k: p, lambda p, x: jnp.tanh(x @ p))\n",  # an unpacking binds, reads nothing
        "%time z = jit(apply)(p, p[0:10])\n",
    )
    found, result = _found(path)
    assert {(cell, code) for cell, _, code in found} == {(6, "JAX601"), (9, "JAX601")}


def test_timeit_run_once_on_the_first_call_of_a_fresh_jit(tmp_path):
    # `%timeit -n 1 -r 1` (or `-n1 -r1`) runs its statement once, like `%time`: on the first
    # call of a fresh jit it holds the compile. `-n 1` alone runs seven rounds, six of them
    # warm, and a later warm call is timed as dispatch only.
    path = _notebook(
        tmp_path,
        "import jax\nimport jax.numpy as jnp\n",
        "@jax.jit\ndef f(x):\n    return jnp.sin(x) @ x\n\n@jax.jit\ndef g(x):\n    return jnp.cos(x) @ x\n"
        "x = jnp.ones((100, 100))\n",
        "%timeit -n 1 -r 1 f(x)\n",
        "%timeit -n1 -r1 jax.jit(lambda v: v @ v)(x)\n",
        "%timeit -n 1 f(x)\n",
        "%timeit -n 1 g(x)\n",
    )
    found, result = _found(path)
    assert {(cell, code) for cell, _, code in found} == {(5, "JAX601"), (6, "JAX601")}


def test_timeit_names_the_call_that_takes_the_arrays(tmp_path):
    # Batch 25 (Juno-T/jax-rl tmp.ipynb 27:1): `%timeit td.nstep_td_errors(3, jnp.zeros(4), ...)`
    # was reported as timing `jnp.ones(4)`, an argument. The arguments are dispatched first
    # and the call that takes them runs last: a function of another module the file cannot
    # see into may wait for its result, so nothing is reported (as for a clock read after
    # such a call); a jitted function of the notebook is named, not its argument.
    path = _notebook(
        tmp_path,
        "import jax\nimport jax.numpy as jnp\nimport td\n",
        "@jax.jit\ndef f(x, y):\n    return jnp.sin(x) @ y\n",
        "%timeit td.nstep_td_errors(3, jnp.zeros(4), jnp.ones(4), .5)\n",
        "%timeit f(jnp.ones((300, 300)), jnp.ones((300, 300)))\n",
    )
    found, result = _found(path)
    assert {(cell, code) for cell, _, code in found} == {(4, "JAX601")}
    (finding,) = result.findings
    assert "times `f(jnp.ones((300, 300))" in finding.message and finding.col == 9


def test_timeit_of_a_tiny_convolution_is_dispatch_bound(tmp_path):
    # Batch 25 (Juno-T/jax-rl in_depth.ipynb 14:11, 14:12, 15:5, 17:3): a convolution of
    # 2x5 arrays built with `append` and stacked, eager, re-wrapped in `jax.jit` at each
    # call, eagerly vmapped and jitted after vmap; blocked and unblocked agree (measured,
    # see rules/JAX601.md). `w, b = theta` in an earlier cell leaves the later `w = ...` in
    # effect. A 300x300 matmul is reported.
    path = _notebook(
        tmp_path,
        "import jax\nimport jax.numpy as jnp\ntheta = jnp.array([1.0, 2.0])\nw, b = theta\n",
        "x = jnp.arange(5)\nw = jnp.array([2., 3., 4.])\n\ndef convolve(x, w):\n  output = []\n"
        "  for i in range(1, len(x)-1):\n    output.append(jnp.dot(x[i-1:i+2], w))\n  return jnp.array(output)\n",
        "def manually_vectorized_convolve(xs, ws):\n  output = []\n  for i in range(1, xs.shape[-1] -1):\n"
        "    output.append(jnp.sum(xs[:, i-1:i+2] * ws, axis=1))\n  return jnp.stack(output, axis=1)\n\n"
        "xs = jnp.stack([x, x])\nws = jnp.stack([w, w])\n"
        "%timeit manually_vectorized_convolve(xs, ws)\n%timeit jax.jit(manually_vectorized_convolve)(xs, ws)\n",
        "auto_batch_convolve = jax.vmap(convolve)\n%timeit auto_batch_convolve(xs, ws)\n",
        "jitted_batch_convolve = jax.jit(auto_batch_convolve)\n%timeit jitted_batch_convolve(xs, ws)\n",
        "big = jnp.ones((300, 300))\n%timeit jax.jit(manually_vectorized_convolve)(big, big)\n",
    )
    found, _ = _found(path)
    assert {(cell, code) for cell, _, code in found} == {(6, "JAX601")}


def test_noqa_works_in_cells(tmp_path):
    path = _notebook(tmp_path, "import jax\n",
                     "@jax.jit\ndef f(x):\n    return 1 if x else 0  # noqa: JAX201\n",
                     "@jax.jit\ndef g(x):\n    return 1 if x else 0  # noqa: JAX999\n")
    found, _ = _found(path)
    assert found == {(3, 3, "JAX201")}


def test_messages_cite_cells_not_module_lines(tmp_path):
    path = _notebook(tmp_path, "import jax\nkey = jax.random.PRNGKey(0)\na = jax.random.normal(key)\n",
                     ("markdown", "more"), "b = jax.random.normal(key)\nc = a + b\n")
    _, result = _found(path)
    (f,) = [f for f in result.findings if f.code == "JAX501"]
    assert (f.cell, f.line) == (3, 1)
    assert "in cell 1, line 3" in f.message


def test_a_cell_with_a_syntax_error_is_skipped_alone(tmp_path):
    path = _notebook(tmp_path, "import jax\n", "def broken(:\n",
                     "@jax.jit\ndef f(x):\n    return 1 if x else 0\n")
    found, result = _found(path)
    assert found == {(3, 3, "JAX201")}
    (d,) = result.diagnostics
    assert d.code == "E999" and "cell 2, line 1: SyntaxError" in d.message
    assert (d.cell, d.line, d.col) == (2, 1, 12)


def test_newer_python_syntax_in_a_cell_is_analysed_not_a_syntax_error(tmp_path):
    # A PEP 701 f-string (a backslash inside the expression) is valid Python 3.12, the
    # notebook's kernel; this interpreter's parser may be older. As for a module, libcst's
    # grammar decides, and the cell's code is analysed with the others.
    cell = "x = 'a\\nb'\nn = f\"{len(x.split('\\n'))}\"\n"
    path = _notebook(tmp_path, "import jax\n", cell, "@jax.jit\ndef f(x):\n    return 1 if x else 0\n")
    found, result = _found(path)
    assert found == {(3, 3, "JAX201")}
    assert result.diagnostics == []


def test_a_notebook_whose_code_never_mentions_jax_is_skipped_like_a_module(tmp_path):
    # Notes that keep C or MATLAB listings in code cells: a .py file that never mentions jax
    # is not parsed, so neither are these cells; the same cell beside jax code is reported.
    listing = "int main(int argc, char** argv){\n  return 0;\n}\n"
    notes = _notebook(tmp_path, ("markdown", "# Cluster basics"), listing, "print(1)\n", name="notes.ipynb")
    assert lint_notebook(str(notes), Settings()).diagnostics == []
    with_jax = _notebook(tmp_path, "import jax\n", listing, name="jax.ipynb")
    assert [d.code for d in lint_notebook(str(with_jax), Settings()).diagnostics] == ["E999"]


def _ran(path: Path, *numbers: int) -> Path:
    """Mark code cells (1-based, counting every cell) as run, as a saved notebook shows."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for count, number in enumerate(numbers, 1):
        nb["cells"][number - 1]["execution_count"] = count
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


@pytest.mark.parametrize("note", [
    "mpirun -np 1 --hostfile infra/host_list python3 infra/mpi_test.py\n",
    "gcloud alpha compute scp infra/ray_test.py test-0:~/$HOME/\n",
    "10.128.15.204, 10.128.15.207, 10.128.15.201\n",
    "/home/user/.local\u2502  WARNING: The scripts ray are installed in '/home/user/.local/bin'\n",
])
def test_a_note_in_a_cell_nobody_ran_is_not_a_syntax_error(tmp_path, note):
    # A terminal command or pasted output kept in a scratch cell of a notebook whose other
    # cells ran: IPython never ran it, and nobody would rewrite it on a SyntaxError.
    path = _ran(_notebook(tmp_path, "import jax\n", note, "print(jax.devices())\n"), 1, 3)
    assert lint_notebook(str(path), Settings()).diagnostics == []
    # The same text in a cell that ran (and failed), or in a notebook saved without any
    # run (no sign which cells are scratch), is reported.
    ran = _ran(_notebook(tmp_path, "import jax\n", note, name="ran.ipynb"), 1, 2)
    never = _notebook(tmp_path, "import jax\n", note, name="never.ipynb")
    for path in (ran, never):
        assert [d.code for d in lint_notebook(str(path), Settings()).diagnostics] == ["E999"]


def test_python_with_a_typo_in_a_cell_nobody_ran_is_still_a_syntax_error(tmp_path):
    path = _ran(_notebook(tmp_path, "import jax\n", "def f(x) return x\n", "source = 3\nsource (1\n"), 1)
    assert [d.cell for d in lint_notebook(str(path), Settings()).diagnostics] == [2, 3]


def test_a_cells_syntax_error_is_located_in_its_cell_in_json(tmp_path):
    # Tools that read the JSON (and the ledger) need the cell and the line in it, not row 1.
    path = _notebook(tmp_path, "import jax\n", "x = 1\nloss = # FINISH ME\n")
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", "json", str(path)],
                          capture_output=True, text=True)
    (item,) = json.loads(proc.stdout)
    assert (item["code"], item["cell"], item["location"]["row"]) == ("E999", 2, 2)


def test_top_level_await_is_not_a_syntax_error(tmp_path):
    path = _notebook(tmp_path, "import asyncio\nawait asyncio.sleep(0)\n", "import jax\n")
    _, result = _found(path)
    assert result.diagnostics == []


@pytest.mark.parametrize("content, message", [
    (b"{not json", "notebook is not valid JSON"),
    (b"[1, 2]", "notebook is not a JSON object"),
    (b'{"metadata": {}, "nbformat": 4}', "notebook has no `cells` list"),
    (b'{"cells": {"a": 1}}', "notebook `cells` is not a list"),
    (b'{"cells": [{"cell_type": "code", "source": 3}]}', "cell 1: `source` is not a string or a list of strings"),
    (b'{"worksheets": [], "nbformat": 3}', "nbformat 3 notebooks are not supported"),
    (b"\xff\xfe\x00", "notebook is not valid UTF-8"),
])
def test_malformed_notebook_gets_one_clear_diagnostic(tmp_path, content, message):
    path = tmp_path / "bad.ipynb"
    path.write_bytes(content)
    result = lint_file(str(path), Settings())
    assert result.findings == []
    (d,) = result.diagnostics
    assert message in d.message


def test_malformed_notebook_through_the_cli_exits_cleanly(tmp_path):
    (tmp_path / "bad.ipynb").write_text("{oops", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "--no-cache", str(tmp_path / "bad.ipynb")],
                          capture_output=True, text=True)
    assert "Traceback" not in proc.stderr
    assert "notebook is not valid JSON" in proc.stderr


def test_non_python_notebook_is_skipped(tmp_path):
    path = _notebook(tmp_path, "import jax\n@jax.jit\ndef f(x):\n    return 1 if x else 0\n",
                     metadata={"language_info": {"name": "R"}})
    found, result = _found(path)
    assert found == set() and result.diagnostics == []


# (cell, whether IPython runs it): each checked against IPython itself where it is installed.
IPYTHON_CELLS = [
    ("  x = 1\n  y = x + 1\n", True),  # leading_indent: the first line's indent comes off
    ("\n  x = 1\n  if x:\n      y = 2\n", True),
    ("  x = 1\n y = 2\n", False),  # a line without the first line's indent stays
    ("!pip install \\\n   jax flax\nimport jax\n", True),  # `\\` continues the shell line
    ("%pip install -q \\\n  optax\nx = 1\n", True),
    ("jnp.sum?\n", True),
    ("x = 1\n??jnp\n", True),
    ("cd ..\n", True),  # automagic
    ("\ncd ..", True),
    ("  cd ..\n", True),
    ("pip install -q optax", True),
    ("conda install -y jax", True),
    ("time f(x)\n", True),
    ("cd ..\n\n", False),  # automagic applies to one-line cells only
    ("pip install -q optax\nimport optax\n", False),
    (">>> x = 1\n>>> y = x\n", True),
    ("files = !ls\n", True),
    ("for i in range(3):\n    !echo hi\n", True),
    ("  %%time\n  x = 1\n", True),
    ("  !nvidia-smi\n  import jax\n", True),
    ("%%capture\n!pip install -q \\\n   flax\n", True),
    ("ls = [1]\nls\n", True),
]


@pytest.mark.parametrize("cell,runs", IPYTHON_CELLS)
def test_cells_parse_as_ipython_runs_them(cell, runs):
    from jaxlint.notebook import _cell_python, _parses

    converted = _cell_python(cell)
    assert (converted is None or _parses(converted[0]) is None) == runs


@pytest.mark.parametrize("cell,runs", IPYTHON_CELLS)
def test_ipython_agrees(cell, runs):
    import ast

    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    shell = interactiveshell.InteractiveShell.instance()
    try:
        ast.parse(shell.transform_cell(cell))
    except SyntaxError:
        assert not runs
    else:
        assert runs


def test_indented_cell_maps_findings_back_to_its_columns(tmp_path):
    path = _notebook(tmp_path, "  import jax\n  import jax.numpy as jnp\n  x = jnp.zeros(3, dtype=jnp.float64)\n")
    [f] = lint_notebook(str(path), Settings(select=("JAX702",))).findings
    assert (f.cell, f.line, f.col) == (1, 3, 7)
def test_percent_inside_brackets_is_python_not_a_magic(tmp_path):
    # IPython looks for magics where a logical line starts: `% (epoch, loss)` continuing
    # an open call (or a `\` line, or a string) is the format operator, and the cell runs
    # (checked with IPython's TransformerManager.transform_cell).
    path = _notebook(
        tmp_path,
        "import logging\nepoch, loss = 1, 0.5\n"
        "logging.info(\"epoch:% 3d loss: %.4f\"\n    % (epoch, loss))\n"
        "total = epoch + \\\n    1\nmsg = \"\"\"\n%d\n\"\"\" % epoch\nok = (epoch\n      != 2)\n",
        "%time x = 1\ny = (2\n     % 3)\n%matplotlib inline\n",
    )
    _, result = _found(path)
    assert result.diagnostics == []
    # A magic after the brackets close is still a magic.
    broken = _notebook(tmp_path, "import jax\n", "x = (1,\n     2)\n%matplotlib inline\nprint(x %)\n", name="b.ipynb")
    _, result = _found(broken)
    assert [d.code for d in result.diagnostics] == ["E999"] and "line 4" in result.diagnostics[0].message
