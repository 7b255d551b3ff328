"""Confirm mode as a user runs it: a clean interpreter per file, notebooks, stdin, examples
from pyproject, planner failures, and the exit status of --confirmed-only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.config import Settings
from jaxlint.linter import lint_file

pytest.importorskip("jax")

CASES = Path(__file__).parent / "confirm_cases"
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}

BOOL_BUG = '''import jax


@jax.jit
def f(x):
    if x > 0:
        return x
    return -x
'''


def jaxlint(*args, cwd=ROOT, stdin=None):
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], capture_output=True, text=True,
                          cwd=cwd, input=stdin, timeout=180, env=ENV)


def lint(path) -> list:
    return lint_file(str(path), Settings(select=("JAX",))).findings


def test_each_file_runs_in_a_clean_interpreter():
    from jaxlint.confirm import confirm_findings

    a, b = CASES / "isolation" / "a_pollutes.py", CASES / "isolation" / "b_checks.py"
    findings = lint(a) + lint(b)
    # Both files have a finding, so both run, a_pollutes first.
    assert [Path(f.path).name for f in findings] == ["a_pollutes.py", "b_checks.py"]
    out, _ = confirm_findings(findings, device="cpu", timeout=60.0)
    got = {Path(f.path).name: f.verdict for f in out}
    # b_checks asserts at import that nothing a_pollutes changed is visible.
    assert got["a_pollutes.py"]["verdict"] == "confirmed", got["a_pollutes.py"]
    assert got["b_checks.py"]["verdict"] == "confirmed", got["b_checks.py"]


def test_notebook_cells_run_in_order_and_verdicts_cite_cells():
    from jaxlint.confirm import confirm_findings

    nb = FIXTURES / "notebooks" / "jaxpr_side_effects.ipynb"
    findings = lint(nb)
    out, _ = confirm_findings(findings, device="cpu", timeout=60.0)
    got = {(f.cell, f.line, f.code): f.verdict for f in out}
    bool_error = got[(10, 4, "JAX201")]
    # The notebook's own call in cell 10 raises at the flagged line: the failure is the evidence.
    assert bool_error["verdict"] == "confirmed", bool_error
    assert "cell 10:4" in bool_error["evidence"]
    leak = got[(2, 7, "JAX102")]
    assert leak["verdict"] == "confirmed", leak


def test_stdin_confirm_runs_the_stdin_text(tmp_path):
    on_disk = tmp_path / "mod.py"
    on_disk.write_text(BOOL_BUG.replace("if x > 0:", "if True:  # fine on disk"))
    proc = jaxlint("--confirm", "--device", "cpu", "--output-format", "concise",
                   "--stdin-filename", str(on_disk), "-", stdin=BOOL_BUG)
    assert "[confirmed: TracerBoolConversionError at line 6]" in proc.stdout, proc.stdout + proc.stderr


def test_warns_once_that_confirm_runs_user_code(tmp_path):
    (tmp_path / "a.py").write_text(BOOL_BUG)
    (tmp_path / "b.py").write_text(BOOL_BUG)
    proc = jaxlint("--confirm", "--device", "cpu", str(tmp_path))
    assert proc.stderr.count("--confirm imports the flagged files and runs their code") == 1


def test_confirmed_only_never_hides_could_not_run(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("import not_a_module_anywhere_xyz  # noqa\n" + BOOL_BUG)
    proc = jaxlint("--confirm", "--confirmed-only", "--device", "cpu", str(bad))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 finding(s) could not run" in proc.stderr
    assert "All checks passed!" not in proc.stderr


def test_examples_from_pyproject_reach_the_line(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxlint.confirm]\nexamples = { "shaped.pick" = "jnp.ones(7)" }\n')
    (tmp_path / "shaped.py").write_text('''import jax
import jax.numpy as jnp


@jax.jit
def pick(x):
    if x.shape[0] == 7:
        if x.sum() > 0:
            return x
    return -x
''')
    from jaxlint.confirm import confirm_findings

    findings = lint(tmp_path / "shaped.py")
    out, _ = confirm_findings(findings, device="cpu", timeout=60.0)
    v = out[0].verdict
    assert v["verdict"] == "confirmed", v
    assert "example from pyproject: (jnp.ones(7))" in v["evidence"]


def test_planner_failure_is_could_not_run_with_the_reason(monkeypatch):
    from jaxlint.confirm import confirm_findings, plan

    def broken(*a, **k):
        raise RuntimeError("planner exploded")

    monkeypatch.setattr(plan, "file_plans", broken)
    findings = lint(CASES / "chatty.py")
    out, _ = confirm_findings(findings, device="cpu", timeout=60.0)
    v = out[0].verdict
    assert v["verdict"] == "could not run" and "planner" in v["summary"], v
    assert "RuntimeError: planner exploded" in v["evidence"]


@pytest.mark.parametrize("text, how", [
    ("if state.step > 10", "state: TrainState(...) from its fields"),
    ("if x.sum() > 0", "layers: 2 x {'b', 'w'} of"),
    ("if pred.mean() > y.mean()", "as called at line"),
])
def test_realistic_pytree_arguments(text, how):
    from jaxlint.confirm import confirm_findings

    path = CASES / "realistic.py"
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if text in t)
    findings = [f for f in lint(path) if f.line == line]
    out, _ = confirm_findings(findings, device="cpu", timeout=60.0)
    v = out[0].verdict
    assert v["verdict"] == "confirmed", v
    assert how in v["evidence"], v


@pytest.mark.parametrize("wrap, replayed", [
    ("step = jax.jit(step, static_argnums=1)", True),  # the same name, rebound to its jit
    ("step_jit = jax.jit(step)", True),
    ("step_v = jax.vmap(step, in_axes=(0, None))", False),  # batched arguments: not step's own
])
def test_calls_through_a_jit_alias_are_the_programs_calls(tmp_path, wrap, replayed):
    from jaxlint.confirm.plan import file_plans
    from jaxlint.finding import Finding

    name = wrap.split(" =")[0]
    text = (f"import jax\nimport jax.numpy as jnp\n\n\ndef step(x, n):\n    return x * n\n\n\n"
            f"{wrap}\n{name}(jnp.ones(3), 5)\n")
    path = tmp_path / "alias.py"
    path.write_text(text)
    f = Finding(path=str(path), line=6, col=1, end_line=6, end_col=1, code="JAX201", message="",
                function="step", function_line=5, confirm={})
    calls = file_plans(str(path), [f])[0]["functions"][0]["calls"]
    assert bool(calls) == replayed, calls
    if replayed:
        assert calls[0]["args"] == "jnp.ones(3), 5", calls
