"""The fixtures' findings, through the real CLI, equal their `# expect:` markers exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.linter import expected_findings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").glob("*.py"))


@pytest.fixture(scope="module")
def cli_findings():
    """One CLI run over every fixture: {path: {(line, code)}}."""
    proc = subprocess.run(
        [sys.executable, "-m", "jaxlint", "--output-format", "json", "--no-cache", "--select", "JAX",
         *[str(p) for p in FIXTURES]],
        capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    out: dict[str, set] = {}
    for f in json.loads(proc.stdout):
        out.setdefault(str(Path(f["filename"]).resolve()), set()).add((f["location"]["row"], f["code"]))
    return out


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture_findings_match_markers(path, cli_findings):
    expected = expected_findings(path.read_text(encoding="utf-8"))
    found = cli_findings.get(str(path.resolve()), set())
    missing = sorted(expected - found)
    extra = sorted(found - expected)
    assert not missing and not extra, f"missing: {missing}; unexpected: {extra}"


def test_fixtures_cover_every_default_rule(cli_findings):
    from jaxlint.rules import all_rules

    seen = {code for found in cli_findings.values() for _, code in found}
    assert {c for c, r in all_rules().items() if r.default} <= seen
