"""The real-bug corpus (benchmarks/realbugs/): every case has a valid header, and recall.py runs.

The cases are not run under JAX here (each header records what running it showed);
only jaxlint runs, on two cases.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.rules import all_rules

ROOT = Path(__file__).resolve().parents[1]
RECALL = ROOT / "benchmarks" / "realbugs" / "recall.py"


def _recall_module():
    spec = importlib.util.spec_from_file_location("realbugs_recall", RECALL)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


recall = _recall_module()
CASES = recall.load_cases()


def test_corpus_is_not_empty():
    assert len(CASES) >= 100


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_case_header(case):
    rules = all_rules()
    assert all(code in rules for code in case.expect), case.expect
    assert case.observed.startswith("jax "), "observed: says which JAX version ran it"
    assert case.batch is not None
    lines = case.path.read_text(encoding="utf-8").splitlines()
    if case.line is not None:
        assert 1 <= case.line <= len(lines)
        assert not lines[case.line - 1].lstrip().startswith("#"), "line: points at code"


def test_bad_header_is_rejected(tmp_path):
    case = tmp_path / "bad_case.py"
    case.write_text("# source: https://example.org/1\n# expect: JAX2O1\n# observed: x\nimport jax\n")
    with pytest.raises(recall.HeaderError):
        recall.load_case(case)


def test_found_allows_one_line_of_slack(tmp_path):
    path = tmp_path / "c.py"
    case = recall.Case(path, "https://example.org", ("JAX201",), 10, "seen", 1)
    assert recall.is_found(case, {"c.py": [("JAX201", 11)]})
    assert not recall.is_found(case, {"c.py": [("JAX201", 12)]})
    assert not recall.is_found(case, {"c.py": [("JAX202", 10)]})


def test_recall_script_runs_on_two_cases():
    names = sorted(CASES, key=lambda case: case.name)[:2]
    result = subprocess.run(
        [sys.executable, str(RECALL), "--jaxlint-root", str(ROOT), *(str(case.path) for case in names)],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "| family | found | total | recall |" in result.stdout
    total = [line for line in result.stdout.splitlines() if line.startswith("| all |")]
    assert total and total[0].split("|")[3].strip() == "2"


RESERVED = Path(os.environ.get(
    "JAXLINT_RESERVED_SOURCES", ROOT.parent / "shared" / "reserved-sources.txt"))


def _reserved_sources() -> tuple[set[str], set[str]]:
    repos, urls = set(), set()
    for line in RESERVED.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        (urls if "://" in line else repos).add(line.lower())
    return repos, urls


def _github_repo(url: str) -> str | None:
    parts = url.split("github.com/", 1)
    if len(parts) < 2:
        return None
    owner_name = parts[1].split("/")[:2]
    return "/".join(owner_name).lower() if len(owner_name) == 2 else None


@pytest.mark.skipif(not RESERVED.exists(), reason="no reserved-sources list beside this checkout")
def test_no_case_or_ledger_repo_comes_from_a_reserved_source():
    """Held-out evaluations keep these sources; a reserved repository includes its tracker."""
    repos, urls = _reserved_sources()
    leaked = [
        case.name
        for case in CASES
        if case.source.lower() in urls or _github_repo(case.source) in repos
    ]
    ledger = ROOT / "benchmarks" / "realworld" / "repos.tsv"
    rows = [line.split("\t") for line in ledger.read_text(encoding="utf-8").splitlines()[1:]]
    leaked += [row[1] for row in rows if len(row) > 1 and row[1].lower() in repos]
    assert leaked == []
