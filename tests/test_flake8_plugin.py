"""The flake8 plugin, through real flake8: the same findings as the jaxlint CLI."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("flake8") is None and
                                subprocess.run([sys.executable, "-m", "flake8", "--version"],
                                               capture_output=True).returncode != 0,
                                reason="flake8 is not installed")

BAD = """\
import jax
import jax.numpy as jnp


@jax.jit
def relu(x):
    if x > 0:
        return x
    return 0.0 * x


@jax.jit
def scale(x, s):
    return x * (s or 1.0)  # noqa: JAX201


@jax.jit
def count(x, n):
    for _ in range(n):
        x = x + 1
    return x
"""

_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) (?P<msg>.*)$")


def _parse(text: str) -> set[tuple[str, int, int, str, str]]:
    out = set()
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            out.add((str(Path(m["path"]).resolve()), int(m["line"]), int(m["col"]), m["code"], m["msg"]))
    return out


def flake8(*args, cwd=ROOT):
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", *args],
                          capture_output=True, text=True, cwd=cwd)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def jaxlint(*args, cwd=ROOT):
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", "concise", *args],
                          capture_output=True, text=True, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return proc


def _python_only(findings):
    return {f for f in findings if ".ipynb" not in f[0]}  # flake8 does not read notebooks


@pytest.mark.parametrize("select", [("--select", "JAX"), ()], ids=["select-JAX", "defaults"])
def test_flake8_matches_the_cli_on_the_fixtures(select):
    fixtures = ROOT / "fixtures"
    ours = _python_only(_parse(jaxlint(*select, str(fixtures)).stdout))
    # flake8 --select JAX runs every JAX rule, opt-in ones too, like `jaxlint --select JAX`;
    # without a selection, flake8 (6+) runs every plugin's codes except its default ignore,
    # where the opt-in rules sit: jaxlint's defaults. (An explicit `--extend-select JAX`
    # would beat that default ignore, as flake8 lets explicit selections do.)
    theirs = _parse(flake8(*select, str(fixtures)).stdout)
    theirs = {f for f in theirs if f[3].startswith("JAX")}
    assert ours, "the fixtures should have findings to compare"
    assert theirs == ours


def test_flake8_reports_lines_and_0_based_columns_like_the_cli(tmp_path):
    (tmp_path / "model.py").write_text(BAD, encoding="utf-8")
    proc = flake8("--select", "JAX", "model.py", cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    # flake8 prints col + 1: the plugin yields 0-based columns, so flake8 shows 1-based ones.
    assert lines[0].startswith("model.py:7:8: JAX201 `if` on traced value `x > 0` raises TracerBoolConversionError")
    assert lines[1].startswith("model.py:19:20: JAX203 ")
    assert len(lines) == 2  # the noqa'd line is dropped by flake8
    assert _parse(proc.stdout) == _parse(jaxlint("model.py", cwd=tmp_path).stdout)


def test_flake8_applies_noqa_itself(tmp_path):
    (tmp_path / "model.py").write_text(BAD, encoding="utf-8")
    proc = flake8("--select", "JAX", "--disable-noqa", "model.py", cwd=tmp_path)
    assert "model.py:14:17: JAX201 " in proc.stdout


def test_broken_and_unrelated_files_never_abort_flake8(tmp_path):
    (tmp_path / "a_broken.py").write_text("import jax\ndef f(:\n", encoding="utf-8")
    (tmp_path / "b_plain.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "c_bad.py").write_text(BAD, encoding="utf-8")
    (tmp_path / "d_deep.py").write_text("import jax\nx = " + "(" * 5000 + ")" * 5000 + "\n", encoding="utf-8")
    proc = flake8("--select", "JAX,E999", ".", cwd=tmp_path)
    assert "./a_broken.py:2:8: E999" in proc.stdout
    assert "./c_bad.py:7:8: JAX201" in proc.stdout
    assert "b_plain.py" not in proc.stdout


def test_files_that_never_mention_jax_are_not_parsed(tmp_path, monkeypatch):
    from jaxlint import flake8_plugin, service

    calls = []
    monkeypatch.setattr(service, "lint_source", lambda *a, **k: calls.append(a))
    checker = flake8_plugin.JaxlintChecker(None, str(tmp_path / "x.py"), ["import numpy as np\n", "np.sum(1)\n"])
    assert list(checker.run()) == []
    assert calls == []


TRANSFORM_CODE = """\
import equinox as eqx


@eqx.filter_jit
def f(x):
    if x > 0:
        return x
    return -x
"""


def test_extend_transforms_from_flake8_config(tmp_path):
    (tmp_path / "m.py").write_text(TRANSFORM_CODE, encoding="utf-8")
    assert "JAX201" not in flake8("--select", "JAX", "m.py", cwd=tmp_path).stdout
    (tmp_path / "setup.cfg").write_text(
        "[flake8]\nselect = JAX\njaxlint-extend-transforms = equinox.filter_jit\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "flake8", "m.py"], capture_output=True, text=True, cwd=tmp_path)
    assert "m.py:6:8: JAX201" in proc.stdout, proc.stdout + proc.stderr


def test_extend_transforms_from_the_command_line(tmp_path):
    (tmp_path / "m.py").write_text(TRANSFORM_CODE, encoding="utf-8")
    proc = flake8("--select", "JAX", "--jaxlint-extend-transforms", "equinox.filter_jit=jit", "m.py", cwd=tmp_path)
    assert "m.py:6:8: JAX201" in proc.stdout


def test_extend_transforms_from_pyproject(tmp_path):
    (tmp_path / "m.py").write_text(TRANSFORM_CODE, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxlint]\nextend-transforms = ["equinox.filter_jit"]\n', encoding="utf-8")
    proc = flake8("--select", "JAX", "m.py", cwd=tmp_path)
    assert "m.py:6:8: JAX201" in proc.stdout
    assert _parse(proc.stdout) == _parse(jaxlint("m.py", cwd=tmp_path).stdout)


def test_config_errors_are_one_finding_not_a_crash(tmp_path):
    (tmp_path / "m.py").write_text(TRANSFORM_CODE, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselekt = ["JAX2"]\n', encoding="utf-8")
    proc = flake8("--select", "JAX", "m.py", cwd=tmp_path)
    assert proc.stdout.startswith("m.py:1:1: JAX000 jaxlint configuration error:"), proc.stdout
    proc = flake8("--select", "JAX", "--jaxlint-extend-transforms", "a.b=nonsense", "m.py", cwd=tmp_path)
    assert "JAX000 jaxlint configuration error" in proc.stdout and "nonsense" in proc.stdout


def test_plugin_is_registered_with_a_valid_prefix():
    proc = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True)
    assert "jaxlint:" in proc.stdout
