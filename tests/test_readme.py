"""The README tells the truth: its shell examples run, its config samples load."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, re.S)


def _jaxlint_commands() -> list[str]:
    """Every `jaxlint ...` command of the bash blocks (installs and pytest are not run here)."""
    out = []
    for block in _blocks("bash"):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            for part in (p.strip() for p in line.split("&&")):
                if part.startswith("jaxlint "):
                    out.append(part)
    return out


def test_readme_has_runnable_examples():
    assert len(_jaxlint_commands()) >= 3


@pytest.mark.parametrize("command", _jaxlint_commands())
def test_readme_command_runs(tmp_path, command):
    pytest.importorskip("jax")
    for name in ("fixtures", "rules"):
        shutil.copytree(ROOT / name, tmp_path / name)
    env = dict(os.environ, PYTHONPATH=str(ROOT), JAX_PLATFORMS="cpu")
    args = shlex.split(command)[1:]
    proc = subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr and "error:" not in proc.stderr, proc.stderr
    assert "warning: no Python files" not in proc.stderr
    assert proc.stdout or "All checks passed" in proc.stderr


@pytest.mark.parametrize("index", range(len(_blocks("toml"))))
def test_readme_config_samples_load(index):
    from jaxlint.config import load_table

    data = tomllib.loads(_blocks("toml")[index])
    table = data.get("tool", {}).get("jaxlint")
    if table is None:
        pytest.skip("not a [tool.jaxlint] sample")
    settings = load_table(table, "README.md", str(ROOT))
    # The main sample keeps the default excludes (it extends them).
    if "extend-exclude" in table:
        assert ".venv" in settings.exclude


def test_readme_links_no_repository_that_does_not_exist():
    assert "github.com/jaxlint" not in README
    assert "pip install jaxlint\n" not in README and "- run: pip install jaxlint" not in README
    assert "repo: local" in README


def test_readme_rule_table_has_a_header_row():
    table = README.split("## What it finds", 1)[1].split("\n\n", 2)[1]
    lines = table.splitlines()
    assert lines[0].startswith("| Code |") and set(lines[1].replace("|", "").split()) == {"---"}
