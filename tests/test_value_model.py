"""The value model on real patterns: findings equal the `# expect:` markers, and
under real JAX the fine code runs while the flagged code raises the named error."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from jaxlint.linter import expected_findings, lint_string

CASES = Path(__file__).parent / "value_model_cases"
FILES = sorted(CASES.glob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_findings_match_markers(path):
    text = path.read_text(encoding="utf-8")
    found = {(f.line, f.code) for f in lint_string(text, path=str(path), select=["JAX"])}
    assert found == expected_findings(text)


def _load(path):
    if path.name == "libraries.py":
        for mod in ("flax", "equinox"):
            pytest.importorskip(mod)
    spec = importlib.util.spec_from_file_location(f"vm_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_fine_code_runs_under_jax(path):
    module = _load(path)
    for name, run in module.RUNS.items():
        run()  # raises if the model's "fine" is wrong


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_flagged_code_raises_under_jax(path):
    module = _load(path)
    for name, (run, error) in module.RAISES.items():
        with pytest.raises(Exception) as info:
            run()
        assert type(info.value).__name__ == error, name
