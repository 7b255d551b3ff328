"""The result cache: reused when nothing that decides a result changed, ignored when broken."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from jaxlint.cache import Cache, settings_key
from jaxlint.config import Settings
from jaxlint.linter import lint_file

BAD = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n", encoding="utf-8")
    (tmp_path / "m.py").write_text(BAD, encoding="utf-8")
    return tmp_path


def _run(project, *args):
    env = {k: v for k, v in os.environ.items() if k != "JAXLINT_CACHE_DIR"}
    return subprocess.run([sys.executable, "-m", "jaxlint", "--output-format", "concise", *args, "."],
                          capture_output=True, text=True, cwd=project, env=env)


def _fresh(project, settings=None):
    settings = settings or Settings(root=str(project))
    return Cache.for_settings(settings), settings


def test_cli_writes_the_cache_with_its_gitignore(project):
    first = _run(project)
    cache_dir = project / ".jaxlint_cache"
    assert (cache_dir / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    assert list(cache_dir.glob("results-*.json"))
    second = _run(project)
    assert (first.returncode, first.stdout) == (second.returncode, second.stdout) == (1, first.stdout)
    assert "m.py:6:8: JAX201" in first.stdout


def test_no_cache_flag_writes_nothing(project):
    _run(project, "--no-cache")
    assert not (project / ".jaxlint_cache").exists()


def test_a_hit_returns_the_same_findings_without_linting(project):
    cache, settings = _fresh(project)
    path = str(project / "m.py")
    assert cache.get(path) is None
    result = lint_file(path, settings)
    cache.put(result)
    cache.save()
    again, _ = _fresh(project, settings)
    hit = again.get(path)
    assert hit is not None and again.hits == 1
    assert hit.findings == result.findings
    assert [f.confirm for f in hit.findings] == [f.confirm for f in result.findings]


def test_a_hit_keeps_the_fixes(project):
    """(`fix` is not part of a finding's equality: compared on its own.)"""
    (project / "m.py").write_text("import jax\n\ny = jax.tree_map(abs, [1])\n", encoding="utf-8")
    cache, settings = _fresh(project)
    path = str(project / "m.py")
    result = lint_file(path, settings)
    cache.put(result)
    cache.save()
    hit = _fresh(project, settings)[0].get(path)
    assert [f.fix for f in hit.findings] == [f.fix for f in result.findings]
    assert hit.findings[0].fix["applicability"] == "safe"


def test_cached_answer_is_used_by_the_cli(project):
    _run(project)
    # Plant a different (valid) answer for m.py: the CLI must show it, so it read the cache.
    (cache_file,) = (project / ".jaxlint_cache").glob("results-*.json")
    data = json.loads(cache_file.read_text(encoding="utf-8"))
    (entry,) = data["files"].values()
    entry["findings"][0]["message"] = "from the cache"
    cache_file.write_text(json.dumps(data), encoding="utf-8")
    assert "JAX201 from the cache" in _run(project).stdout


def test_changed_content_is_relinted(project):
    _run(project)
    (project / "m.py").write_text(BAD.replace("if x > 0:", "if x.ndim > 0:"), encoding="utf-8")
    proc = _run(project)
    assert proc.returncode == 0 and proc.stdout == ""


def test_changed_settings_use_another_cache_entry(project):
    base = Settings(root=str(project))
    keys = {settings_key(base), settings_key(replace(base, ignore=("JAX201",))),
            settings_key(replace(base, extend_transforms=(("my.jit", "jit"),))),
            settings_key(replace(base, per_file_ignores=(("m.py", ("JAX2",)),)))}
    assert len(keys) == 4
    _run(project)
    (project / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX201"]\n', encoding="utf-8")
    assert _run(project).returncode == 0


def test_results_are_keyed_on_jaxlint_version(project, monkeypatch):
    import jaxlint.cache as cache_module

    before = settings_key(Settings(root=str(project)))
    monkeypatch.setattr(cache_module, "__version__", "999.0")
    assert settings_key(Settings(root=str(project))) != before


@pytest.mark.parametrize("garbage", [b"{not json", b"[]", b'{"format": 1, "files": {"x": 3}}',
                                     b'{"format": 1, "files": {"M": {"sha256": "SHA", "findings": [{"bogus": 1}], "diagnostics": []}}}',
                                     b'{"format": 1, "files": {"M": {"sha256": "SHA", "findings": [{"line": "x"}]}}}',
                                     b'{"format": 1, "files": {"M": {"sha256": "SHA", "diagnostics": [], "findings": [{'
                                     b'"line": "6", "col": 8, "end_line": 6, "end_col": 13, "code": "JAX201", '
                                     b'"message": "m", "confirm": {}}]}}}',
                                     b"\x80\x81", b"[" * 100000])
def test_a_corrupt_cache_is_ignored(project, garbage):
    _run(project)
    (cache_file,) = (project / ".jaxlint_cache").glob("results-*.json")
    sha = hashlib.sha256((project / "m.py").read_bytes()).hexdigest().encode()
    cache_file.write_bytes(garbage.replace(b'"M"', json.dumps(str(project / "m.py")).encode())
                           .replace(b"SHA", sha))
    proc = _run(project)
    assert proc.returncode == 1 and "m.py:6:8: JAX201" in proc.stdout
    assert "Traceback" not in proc.stderr
    json.loads(cache_file.read_text(encoding="utf-8"))  # rewritten cleanly


def test_an_unwritable_cache_is_ignored(project):
    (project / ".jaxlint_cache").write_text("a file where the folder should be", encoding="utf-8")
    proc = _run(project)
    assert proc.returncode == 1 and "m.py:6:8: JAX201" in proc.stdout
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True,
                    reason="root ignores directory permissions")
def test_a_read_only_cache_folder_is_ignored(project):
    _run(project)
    (project / "m.py").write_text(BAD + "\n", encoding="utf-8")
    os.chmod(project / ".jaxlint_cache", 0o500)
    try:
        proc = _run(project)
    finally:
        os.chmod(project / ".jaxlint_cache", 0o700)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr


def test_transient_diagnostics_are_not_cached(project):
    from jaxlint.finding import Diagnostic
    from jaxlint.linter import FileResult

    cache, _ = _fresh(project)
    path = str(project / "m.py")
    assert cache.get(path) is None
    cache.put(FileResult(path, diagnostics=[Diagnostic(path, "took longer than 30 s to analyse; skipped")]))
    cache.save()
    again, _ = _fresh(project)
    assert again.get(path) is None


def test_syntax_errors_are_cached_with_their_diagnostic(project):
    (project / "m.py").write_text("import jax\ndef f(:\n", encoding="utf-8")
    first = _run(project)
    second = _run(project)
    assert "E999" in first.stderr and first.stderr == second.stderr


def test_notebooks_are_cached_with_their_cells(project):
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# t"]},
                    {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": BAD.splitlines(True)}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (project / "m.py").unlink()
    (project / "nb.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    first, second = _run(project), _run(project)
    assert first.stdout == second.stdout
    assert "nb.ipynb:cell 2:6:8: JAX201" in second.stdout


def test_the_cache_holds_no_pickle(project):
    _run(project)
    for p in (project / ".jaxlint_cache").iterdir():
        data = p.read_bytes()
        assert not data.startswith(b"\x80"), p  # pickle protocol 2+ header
        if p.suffix == ".json":
            json.loads(data)


def test_x64_turned_on_elsewhere_in_the_project_is_not_answered_from_the_cache(project):
    # JAX702 reads whether a conftest.py turns x64 on: the file's bytes alone do not
    # decide its findings, so a cached result must not outlive that fact.
    (project / "m.py").write_text(
        "import jax.numpy as jnp\n\n\ndef total(x):\n    return jnp.zeros(3, dtype=jnp.float64) + x\n",
        encoding="utf-8")
    first = _run(project)
    assert "m.py:5:12: JAX702" in first.stdout, first.stdout
    (project / "conftest.py").write_text(
        'import jax\n\njax.config.update("jax_enable_x64", True)\n', encoding="utf-8")
    second = _run(project)
    assert "JAX702" not in second.stdout, second.stdout
    (project / "conftest.py").unlink()
    third = _run(project)
    assert third.stdout == first.stdout
