"""The pre-commit hook, through real `pre-commit try-repo` on a scratch git repository.

try-repo clones this repository (HEAD plus uncommitted changes), builds the hook's
isolated environment from PyPI (hatchling, libcst, click), and runs it on the
files given. It fails on a file with a pitfall and passes on a clean one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent
yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit")

BAD = """\
import jax


@jax.jit
def relu(x):
    if x > 0:
        return x
    return 0.0 * x
"""

GOOD = """\
import jax
import jax.numpy as jnp


@jax.jit
def relu(x):
    return jnp.where(x > 0, x, 0.0)
"""

# Messages that mean "no network / no index", not "the hook is broken".
_OFFLINE = ("Failed to establish a new connection", "Temporary failure in name resolution",
            "No matching distribution found", "Could not find a version that satisfies",
            "Network is unreachable", "ProxyError", "Max retries exceeded")

pytestmark = pytest.mark.skipif(shutil.which("pre-commit") is None or shutil.which("git") is None,
                                reason="pre-commit (and git) must be installed")


def test_hook_definition_matches_ruffs_conventions():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "jaxlint"
    assert hook["language"] == "python"
    assert hook["entry"] == "jaxlint --force-exclude"
    assert hook["types_or"] == ["python", "pyi", "jupyter"]
    assert hook["require_serial"] is True
    assert hook["args"] == []


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    repo = tmp_path_factory.mktemp("precommit-user")
    _git("init", "-q", cwd=repo)
    (repo / "bad.py").write_text(BAD, encoding="utf-8")
    (repo / "good.py").write_text(GOOD, encoding="utf-8")
    (repo / "vendor").mkdir()
    (repo / "vendor" / "bad_vendored.py").write_text(BAD, encoding="utf-8")
    (repo / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["vendor"]\n', encoding="utf-8")
    _git("add", ".", cwd=repo)
    _git("commit", "-q", "-m", "init", cwd=repo)
    return repo


def _try_repo(repo, *files):
    proc = subprocess.run(["pre-commit", "try-repo", str(ROOT), "jaxlint", "--verbose", "--files", *files],
                          cwd=repo, capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    if proc.returncode == 3 or "An unexpected error has occurred" in out:
        if any(m in out for m in _OFFLINE):
            pytest.skip("the hook's environment cannot be built offline (PyPI unreachable)")
    return proc.returncode, out


def test_hook_fails_on_a_pitfall(scratch):
    rc, out = _try_repo(scratch, "bad.py")
    assert rc == 1, out
    assert "bad.py:6:8: JAX201" in out
    assert "Failed" in out


def test_hook_passes_on_clean_code(scratch):
    rc, out = _try_repo(scratch, "good.py")
    assert rc == 0, out
    assert "Passed" in out


def test_hook_honours_excludes_for_files_passed_explicitly(scratch):
    # pre-commit names every staged file; --force-exclude keeps excluded ones out.
    rc, out = _try_repo(scratch, "vendor/bad_vendored.py", "good.py")
    assert rc == 0, out
