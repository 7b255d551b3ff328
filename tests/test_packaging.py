"""The distribution: rule pages ship in the wheel, and the README lists every rule."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from jaxlint.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent


def test_readme_rule_table_lists_every_rule():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for code, rule in all_rules().items():
        assert f"| [{code}](rules/{code}.md) | `{rule.name}` |" in readme, code


def test_readme_starts_with_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[0].endswith("jaxlint fixtures/")
    assert "'.[test]'" in block[1] and block[1].endswith("python -m pytest -q")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -q -e '.[test]'" in ci and "python -m pytest -q" in ci


def test_wheel_ships_pages_and_rule_command_works_from_it(tmp_path):
    pytest.importorskip("hatchling")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    wheel = next(tmp_path.glob("jaxlint-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        assert {f"jaxlint/_pages/{code}.md" for code in all_rules()} <= names
        assert "jaxlint/cli.py" in names
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        text = zf.read(entry_points).decode()
        assert "jaxlint = jaxlint.cli:main" in text and "JAX = jaxlint.flake8_plugin:JaxlintChecker" in text
        zf.extractall(tmp_path / "site")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    out = subprocess.run([sys.executable, "-m", "jaxlint", "rule", "JAX201"], cwd=tmp_path,
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("# JAX201: traced-bool-conversion")
    where = subprocess.run([sys.executable, "-c", "import jaxlint.pages as p; print(p.pages_dir())"],
                           cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60)
    assert where.stdout.strip().endswith(os.path.join("site", "jaxlint", "_pages"))
