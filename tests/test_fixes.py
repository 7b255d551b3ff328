"""Fixes: the edit machinery, --fix / --unsafe-fixes / --diff on the fixtures, notebooks,
version awareness, --add-noqa, JAX100 and baselines."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jaxlint import api_changes
from jaxlint.config import Settings
from jaxlint.finding import FileResult, Finding
from jaxlint.fixes import Edit, EditError, Fix, apply_edits, apply_fixes, check_source, fix_text
from jaxlint.linter import lint_string

ROOT = Path(__file__).resolve().parent.parent


def run(*args, cwd, stdin=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT), JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=env, timeout=300)


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".jaxlint_cache" not in p.parts}


@pytest.fixture
def fixtures_copy(tmp_path):
    dest = tmp_path / "fixtures"
    shutil.copytree(ROOT / "fixtures", dest)
    return dest


# The one place that applies edits -----------------------------------------------------
def test_apply_edits_replaces_inserts_and_keeps_line_endings():
    text = "a = 1\r\nb = 2\r\n"
    out = apply_edits(text, [Edit(2, 5, 2, 6, "3"), Edit(1, 1, 1, 1, "import jax\n")])
    assert out == "import jax\r\na = 1\r\nb = 3\r\n"


def test_apply_edits_rejects_overlaps_and_counts_identical_edits_once():
    with pytest.raises(EditError):
        apply_edits("abcdef\n", [Edit(1, 1, 1, 4, "x"), Edit(1, 3, 1, 5, "y")])
    assert apply_edits("x\n", [Edit(1, 1, 1, 1, "import jax\n")] * 2) == "import jax\nx\n"


def test_apply_fixes_first_of_two_overlapping_fixes_wins():
    a = Fix("safe", "a", (Edit(1, 1, 1, 2, "A"),))
    b = Fix("safe", "b", (Edit(1, 1, 1, 2, "B"),))
    assert apply_fixes("x = 1\n", [a, b]) == "A = 1\n"


def test_fix_round_trips_through_json():
    fix = Fix("unsafe", "m", (Edit(1, 2, 3, 4, "c", cell=5),))
    assert Fix.from_dict(json.loads(json.dumps(fix.to_dict()))) == fix
    assert Fix.from_dict({"applicability": "bogus"}) is None


def test_a_fix_that_breaks_the_code_is_never_applied():
    text = "x = 1\n"
    broken = Fix("safe", "breaks", (Edit(1, 1, 1, 2, "x ="),)).to_dict()
    finding = Finding("f.py", 1, 1, 1, 2, "JAX999", "m", fix=broken)
    result = fix_text(text, "f.py", Settings(), lint=lambda t: FileResult("f.py", findings=[finding]))
    assert result.new == text and not result.applied


def test_check_source_gives_findings_with_ruff_fix_objects():
    result = check_source("import jax\nout = jax.tree_map(abs, [1])\n", "m.py")
    (f,) = result.findings
    assert f.fix == {"applicability": "safe", "message": "Replace `jax.tree_map` with `jax.tree.map`",
                     "edits": [{"content": "jax.tree.map", "location": {"row": 2, "column": 7},
                                "end_location": {"row": 2, "column": 19}}]}


# --fix / --diff on the fixtures ------------------------------------------------------------
def _remaining(folder: Path, *extra):
    r = run("check", "--no-cache", "--output-format", "json", "--select", "JAX", *extra, ".", cwd=folder)
    return r, [d for d in json.loads(r.stdout) if d["code"].startswith("JAX")]


def test_diff_writes_nothing(fixtures_copy):
    before = _digest(fixtures_copy)
    r = run("check", "--no-cache", "--diff", "--unsafe-fixes", ".", cwd=fixtures_copy)
    assert r.returncode == 1, r.stderr
    assert "+++ legacy_api_tutorial.py" in r.stdout and "-print(jnp.alltrue(array2 >= 0))" in r.stdout
    assert "Would fix" in r.stderr
    assert _digest(fixtures_copy) == before


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_fix_leaves_only_unfixable_findings_and_a_second_fix_changes_nothing(fixtures_copy, unsafe):
    flags = ["--unsafe-fixes"] if unsafe else []
    r = run("check", "--no-cache", "--fix", "--select", "JAX", *flags, ".", cwd=fixtures_copy)
    assert "Traceback" not in r.stderr and "fixed" in r.stderr, r.stderr
    _, left = _remaining(fixtures_copy)
    levels = ("safe", "unsafe") if unsafe else ("safe",)
    fixable = [d for d in left if d["fix"] and d["fix"]["edits"] and d["fix"]["applicability"] in levels]
    assert fixable == []
    assert left  # what has no automatic fix is still reported
    after = _digest(fixtures_copy)
    r = run("check", "--no-cache", "--fix", "--select", "JAX", *flags, ".", cwd=fixtures_copy)
    assert "(0 fixed," in r.stderr
    assert _digest(fixtures_copy) == after
    # Every fixed Python file still compiles.
    for path in fixtures_copy.rglob("*.py"):
        compile(path.read_text(), str(path), "exec")


def test_fixed_legacy_tutorial_matches_the_migration(fixtures_copy):
    run("check", "--no-cache", "--fix", "legacy_api_tutorial.py", cwd=fixtures_copy)
    text = (fixtures_copy / "legacy_api_tutorial.py").read_text()
    assert "from jax import config  # expect: JAX902" in text
    assert "print(array2.at[1:3].set(0))" in text
    assert "doubled = jax.tree.map(lambda x: x * 2, tree)" in text
    assert "jnp.DeviceArray" in text  # outside an annotation the fix is unsafe
    assert "jax.xla_computation" in text  # unsafe


def test_show_fixes_lists_what_was_fixed(fixtures_copy):
    r = run("check", "--no-cache", "--fix", "--show-fixes", "legacy_api_tutorial.py", cwd=fixtures_copy)
    assert "3 × JAX901 (removed-tree-alias)" in r.stderr


def test_fix_reads_stdin_and_prints_the_fixed_source(tmp_path):
    r = run("check", "--fix", "-", cwd=tmp_path, stdin="import jax\nx = jax.tree_map(abs, [1])\n")
    assert r.stdout == "import jax\nx = jax.tree.map(abs, [1])\n"


# Notebooks -----------------------------------------------------------------------------
def _notebook(path: Path) -> Path:
    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Old tutorial\n"]},
            {"cell_type": "code", "execution_count": 1, "metadata": {"tags": ["keep"]},
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["2.0\n"]}],
             "source": ["import jax\n", "import jax.numpy as jnp\n", "%matplotlib inline\n",
                        "doubled = jax.tree_map(lambda v: v * 2, {'a': 1.0})"]},
            {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
             "source": ["x = jnp.zeros(3)\n", "x[0] = 1.0\n", "%timeit jnp.dot(x, x)"]},
        ],
        "metadata": {"kernelspec": {"name": "python3", "language": "python"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb, indent=1) + "\n")
    return path


def test_notebook_fix_round_trips(tmp_path):
    path = _notebook(tmp_path / "old.ipynb")
    before = json.loads(path.read_text())
    r = run("check", "--no-cache", "--fix", "--unsafe-fixes", "old.ipynb", cwd=tmp_path)
    assert "Traceback" not in r.stderr
    after = json.loads(path.read_text())
    assert after["metadata"] == before["metadata"] and after["nbformat"] == 4
    for old, new in zip(before["cells"], after["cells"]):
        assert {k: v for k, v in old.items() if k != "source"} == {k: v for k, v in new.items() if k != "source"}
    assert after["cells"][0] == before["cells"][0]
    assert "".join(after["cells"][1]["source"]) == (
        "import jax\nimport jax.numpy as jnp\n%matplotlib inline\n"
        "doubled = jax.tree.map(lambda v: v * 2, {'a': 1.0})")
    assert "".join(after["cells"][2]["source"]) == (
        "x = jnp.zeros(3)\nx = x.at[0].set(1.0)\n%timeit jax.block_until_ready(jnp.dot(x, x))")
    assert isinstance(after["cells"][1]["source"], list)
    again = path.read_bytes()
    run("check", "--no-cache", "--fix", "--unsafe-fixes", "old.ipynb", cwd=tmp_path)
    assert path.read_bytes() == again
    r = run("check", "--no-cache", "old.ipynb", cwd=tmp_path)
    assert r.returncode == 0, r.stdout


def test_notebook_diff_names_the_cell_and_writes_nothing(tmp_path):
    path = _notebook(tmp_path / "old.ipynb")
    data = path.read_bytes()
    r = run("check", "--no-cache", "--diff", "old.ipynb", cwd=tmp_path)
    assert "--- old.ipynb:cell 2" in r.stdout and path.read_bytes() == data


# Version awareness -----------------------------------------------------------------------
TREE_MAP = "import jax\nout = jax.tree_map(abs, [1])\n"


@pytest.mark.parametrize("target,codes", [
    ("0.3.0", []),  # before the deprecation: nothing to say
    ("0.4.30", ["JAX906"]),  # deprecated in 0.4.26, still there
    ("0.6.0", ["JAX901"]),  # removed
])
def test_target_version_decides_between_nothing_deprecation_and_removal(target, codes):
    found = lint_string(TREE_MAP, settings=Settings(target_jax_version=target))
    assert [f.code for f in found] == codes


def test_old_target_fixes_with_tree_util():
    r = fix_text(TREE_MAP, "m.py", Settings(target_jax_version="0.4.20", select=("JAX",)))
    assert r.new == TREE_MAP  # 0.4.20 has jax.tree_map: nothing to fix
    old = "import jax\nout = jax.tree_util.tree_multimap(abs, [1])\n"
    r = fix_text(old, "m.py", Settings(target_jax_version="0.4.20"))
    assert "jax.tree_util.tree_map(abs, [1])" in r.new


def test_deprecation_is_information_and_does_not_fail_the_run(tmp_path):
    (tmp_path / "m.py").write_text(TREE_MAP)
    r = run("check", "--no-cache", "--target-jax-version", "0.4.30", "m.py", cwd=tmp_path)
    assert r.returncode == 0 and "JAX906" in r.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\ntarget-jax-version = "0.6.0"\n')
    r = run("check", "--no-cache", "m.py", cwd=tmp_path)
    assert r.returncode == 1 and "JAX901" in r.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\ntarget-jax-version = "soon"\n')
    assert run("check", "m.py", cwd=tmp_path).returncode == 2


def test_default_target_is_the_installed_jax_read_without_importing_it():
    from importlib import metadata

    assert api_changes.default_target() == metadata.version("jax")
    code = "import sys, jaxlint.api_changes as a; a.default_target(); print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.stdout.strip() == "False"


def test_version_table_agrees_with_the_installed_jax():
    """Removed at the installed version: gone; deprecated only: still there."""
    import importlib

    jax = pytest.importorskip("jax")
    installed = jax.__version__

    def exists(qualname: str) -> bool:
        parts = qualname.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for attr in parts[i:]:
                if not hasattr(obj, attr):
                    return False
                obj = getattr(obj, attr)
            return True
        return False

    def importable(module: str) -> bool:
        try:
            importlib.import_module(module)
        except ImportError:
            return False
        return True

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, api in api_changes.API_CHANGES.items():
            gone = api_changes.removed_at(api, installed)
            assert exists(name) != gone, f"{name}: table says removed={gone} at {installed}"
        for name, api in api_changes.MODULE_CHANGES.items():
            gone = api_changes.removed_at(api, installed)
            assert importable(name) != gone, f"{name}: table says removed={gone} at {installed}"
            if api.removed_in and api.deprecated_in:
                assert api_changes.parse_version(api.deprecated_in) < api_changes.parse_version(api.removed_in)


# --add-noqa and JAX100 --------------------------------------------------------------------
LEGACY = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp

    x = jnp.zeros(3)
    x[0] = 1.0
    y = jax.tree_map(abs, [1])  # a comment
    z = jnp.alltrue(x)  # noqa: E501
""")


def test_add_noqa_then_the_run_is_clean_and_jax100_finds_stale_codes(tmp_path):
    (tmp_path / "m.py").write_text(LEGACY)
    r = run("check", "--no-cache", "--add-noqa", "m.py", cwd=tmp_path)
    assert r.returncode == 0 and "Added 3 noqa directives" in r.stderr
    text = (tmp_path / "m.py").read_text()
    assert "x[0] = 1.0  # noqa: JAX301\n" in text
    assert "# noqa: JAX901  # a comment" in text
    assert "# noqa: E501, JAX903" in text
    assert run("check", "--no-cache", "m.py", cwd=tmp_path).returncode == 0
    # Fix the code under one directive: JAX100 (opt-in) reports it, and its fix removes it.
    (tmp_path / "m.py").write_text(text.replace("x[0] = 1.0", "x = x.at[0].set(1.0)"))
    r = run("check", "--no-cache", "--extend-select", "JAX100", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert [line.split()[1] for line in r.stdout.splitlines()] == ["JAX100"]
    run("check", "--no-cache", "--extend-select", "JAX100", "--fix", "m.py", cwd=tmp_path)
    assert "x = x.at[0].set(1.0)\n" in (tmp_path / "m.py").read_text()


def test_jax100_ignores_other_tools_codes_and_is_opt_in():
    code = "import jax\nx = 1  # noqa: E501, F401\ny = 2  # noqa\nz = 3  # noqa: JAX999\n"
    assert lint_string(code) == []  # opt-in
    found = lint_string(code, select=["JAX100"])
    assert [(f.line, f.code) for f in found] == [(4, "JAX100")]
    assert "unknown: `JAX999`" in found[0].message


# Baselines --------------------------------------------------------------------------------
def test_baseline_hides_known_findings_even_when_code_moves(tmp_path):
    (tmp_path / "m.py").write_text(LEGACY)
    r = run("check", "--no-cache", "--write-baseline", "base.json", "m.py", cwd=tmp_path)
    assert r.returncode == 0
    assert run("check", "--no-cache", "--baseline", "base.json", "m.py", cwd=tmp_path).returncode == 0
    moved = "import os\n\n\n" + LEGACY.replace("x = jnp.zeros(3)\n", "x = jnp.zeros(3)\nprint(os.sep)\n")
    (tmp_path / "m.py").write_text(moved + "w = jnp.product(x)\n")
    r = run("check", "--no-cache", "--baseline", "base.json", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert r.returncode == 1
    assert [line.split()[1] for line in r.stdout.splitlines()] == ["JAX903"]
    assert "jnp.product" in r.stdout and "3 findings hidden by the baseline" in r.stderr


def test_sarif_and_baseline_share_fingerprints():
    from jaxlint import fingerprints
    from jaxlint.formats import FormatContext
    from jaxlint.formats import sarif

    f = lint_string(LEGACY, path="m.py")
    ctx = FormatContext(sources={"m.py": LEGACY})
    assert sarif.fingerprints(f, ctx) == fingerprints.fingerprints(f, {"m.py": LEGACY})


# CLI truthfulness ----------------------------------------------------------------------------
def test_statistics_prints_only_the_table(fixtures_copy):
    r = run("check", "--no-cache", "--statistics", "legacy_api_tutorial.py", cwd=fixtures_copy)
    lines = r.stdout.splitlines()
    assert lines and all(line.count("\t") == 2 for line in lines), r.stdout
    assert any("JAX901\t[*] removed-tree-alias" in line for line in lines)


def test_syntax_errors_appear_in_json_and_github_output(tmp_path):
    (tmp_path / "broken.py").write_text("import jax\ndef f(:\n")
    r = run("check", "--no-cache", "--output-format", "json", "broken.py", cwd=tmp_path)
    (item,) = json.loads(r.stdout)
    assert item["code"] == "E999" and item["location"]["row"] == 2 and r.returncode == 1
    r = run("check", "--no-cache", "--output-format", "github", "broken.py", cwd=tmp_path)
    assert r.stdout.startswith("::error file=broken.py,line=2,")
    assert "E999" in r.stdout


def test_no_files_found_is_a_warning(tmp_path):
    (tmp_path / "empty").mkdir()
    r = run("check", "--no-cache", "empty", cwd=tmp_path)
    assert "warning: no Python files" in r.stderr


def test_top_level_help_describes_commands_formats_and_exit_codes(tmp_path):
    r = run("--help", cwd=tmp_path)
    for text in ("jaxlint rule JAX201", "sarif", "--fix", "Exit codes", "usage, configuration"):
        assert text in r.stdout


def test_every_name_a_fix_writes_exists_in_the_installed_jax():
    """Each rename is checked under the installed JAX: the new name resolves."""
    import importlib
    import re

    pytest.importorskip("jax")
    names = set()
    for api in {**api_changes.API_CHANGES, **api_changes.MODULE_CHANGES}.values():
        if api.new:
            names.update(re.findall(r"\b(?:jax|numpy)(?:\.\w+)+", api.new))
        if api.same_name_in:
            names.add(api.same_name_in)
    names |= {"jax.tree_util.tree_map", "jax.numpy.isin", "jax.enable_x64", "jax.block_until_ready",
              "jax.random.split", "numpy.s_"}
    for name in sorted(names):
        parts = name.split(".")
        obj = None
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for attr in parts[i:]:
                obj = getattr(obj, attr)
            break
        assert obj is not None, name


def test_an_added_import_goes_after_the_shebang_docstring_and_future_imports():
    src = "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nx = 1\nimport jax.numpy as jnp\n\n\ndef f(a: jnp.DeviceArray):\n    return a\n"
    out = fix_text(src, "m.py", Settings()).new
    assert out.startswith("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport jax\nx = 1\n")
    # Under postponed annotations an annotation never raises (not reported): the removed
    # class is used in code instead, whose fix is unsafe.
    src = '"""Doc."""\nfrom __future__ import annotations\nimport jax.numpy as jnp\n\n\ndef f(a):\n    return isinstance(a, jnp.DeviceArray)\n'
    out = fix_text(src, "m.py", Settings(), unsafe=True).new
    assert out.startswith('"""Doc."""\nfrom __future__ import annotations\nimport jax.numpy as jnp\nimport jax\n')


def test_notebook_fix_changes_only_the_fixed_source_lines(fixtures_copy):
    """Escapes, indentation and key order of the JSON are kept: the diff is the code."""
    path = fixtures_copy / "notebooks" / "jit_control_flow.ipynb"
    before = path.read_text().splitlines()
    run("check", "--no-cache", "--fix", "--unsafe-fixes", str(path), cwd=fixtures_copy)
    after = path.read_text().splitlines()
    import difflib
    changed = [line for line in difflib.unified_diff(before, after, lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changed and all(line[1:].startswith('    "') for line in changed), changed
