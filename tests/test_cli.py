"""The command line, run as users run it: `python -m jaxlint` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

BAD = textwrap.dedent("""\
    import jax


    @jax.jit
    def f(x):
        if x > 0:
            return x
        return int(x)
""")
GOOD = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(x):
        return jnp.where(x > 0, x, 0.0)
""")


def run(*args, cwd, stdin=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "good.py").write_text(GOOD)
    return tmp_path


def test_exit_codes(project):
    assert run("good.py", cwd=project).returncode == 0
    r = run("bad.py", cwd=project)
    assert r.returncode == 1
    assert run("bad.py", "--exit-zero", cwd=project).returncode == 0
    r = run("bad.py", "--select", "JAX999", cwd=project)
    assert r.returncode == 2 and "unknown rule code" in r.stderr
    assert run("--output-format", "nope", "bad.py", cwd=project).returncode == 2


def test_concise_format_is_exact(project):
    r = run("--output-format", "concise", "--no-cache", ".", cwd=project)
    lines = r.stdout.splitlines()
    assert lines == [
        "bad.py:6:8: JAX201 `if` on traced value `x > 0` raises TracerBoolConversionError under jit; "
        "use jnp.where(cond, a, b) or lax.cond, or mark `x` static with static_argnames=(\"x\",)",
        "bad.py:8:12: JAX202 `int()` on traced value `x` raises ConcretizationTypeError under jit; "
        "keep it an array (`x.astype(jnp.int32)`), or use jax.debug.print to see it, "
        "or mark `x` static with static_argnames=(\"x\",)",
    ]


def test_full_format_has_snippet_and_caret(project):
    r = run("bad.py", cwd=project)
    assert "    6 |     if x > 0:" in r.stdout
    assert "      |        ^^^^^" in r.stdout
    assert "Found 2 findings." in r.stderr


def test_json_format_has_ruff_keys(project):
    r = run("--output-format", "json", "bad.py", cwd=project)
    data = json.loads(r.stdout)
    assert [d["code"] for d in data] == ["JAX201", "JAX202"]
    first = data[0]
    assert {"code", "message", "filename", "location", "end_location", "fix", "url", "noqa_row"} <= set(first)
    assert first["location"] == {"row": 6, "column": 8}
    assert first["end_location"] == {"row": 6, "column": 13}
    assert first["url"] is None  # nothing is linked that does not exist


def test_select_ignore_and_statistics(project):
    r = run("--output-format", "concise", "--select", "JAX202", "bad.py", cwd=project)
    assert [l.split()[1] for l in r.stdout.splitlines()] == ["JAX202"]
    r = run("--output-format", "concise", "--ignore", "JAX20", "bad.py", cwd=project)
    assert r.stdout == "" and r.returncode == 0
    r = run("--output-format", "concise", "--statistics", "-q", "bad.py", cwd=project)
    assert "    1\tJAX201\t    traced-bool-conversion" in r.stdout
    assert "bad.py:" not in r.stdout  # only the table, as ruff prints it


def test_noqa(project):
    src = BAD.replace("if x > 0:", "if x > 0:  # noqa: JAX201").replace("int(x)", "int(x)  # noqa")
    (project / "bad.py").write_text(src)
    assert run("bad.py", cwd=project).returncode == 0
    (project / "bad.py").write_text(BAD.replace("if x > 0:", "if x > 0:  # noqa: JAX202"))
    r = run("--output-format", "concise", "bad.py", cwd=project)
    assert [l.split()[1] for l in r.stdout.splitlines()] == ["JAX201", "JAX202"]
    (project / "bad.py").write_text("# jaxlint: noqa\n" + BAD)
    assert run("bad.py", cwd=project).returncode == 0


def test_pyproject_config(project):
    (project / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.jaxlint]
        ignore = ["JAX202"]
        per-file-ignores = {"legacy/*" = ["JAX2"]}
        extend-exclude = ["generated"]
    """))
    (project / "legacy").mkdir()
    (project / "legacy" / "old.py").write_text(BAD)
    (project / "generated").mkdir()
    (project / "generated" / "gen.py").write_text(BAD)
    r = run("--output-format", "concise", ".", cwd=project)
    assert [l.split(":")[0] + " " + l.split()[1] for l in r.stdout.splitlines()] == ["bad.py JAX201"]
    # Named explicitly, an excluded file is linted, unless --force-exclude.
    assert run("generated/gen.py", cwd=project).returncode == 1
    assert run("--force-exclude", "generated/gen.py", cwd=project).returncode == 0


@pytest.mark.parametrize("table,message", [
    ('[tool.jaxlint]\nselekt = ["JAX"]\n', "unknown key `selekt`"),
    ('[tool.jaxlint]\nselect = ["JAX777"]\n', "unknown rule code or prefix `JAX777`"),
    ('[tool.jaxlint]\nselect = "JAX" "\n', "cannot read"),
    ('[tool.jaxlint]\nextend-transforms = {"my.jit" = "jitt"}\n', "unknown kind `jitt`"),
])
def test_config_errors_exit_2_without_traceback(project, table, message):
    (project / "pyproject.toml").write_text(table)
    r = run("bad.py", cwd=project)
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr


def test_extend_transforms_config(project):
    (project / "pyproject.toml").write_text('[tool.jaxlint]\nextend-transforms = ["mylib.my_jit"]\n')
    (project / "custom.py").write_text(textwrap.dedent("""\
        from mylib import my_jit

        @my_jit
        def f(x):
            return x if x > 0 else -x
    """))
    r = run("--output-format", "concise", "custom.py", cwd=project)
    assert r.stdout.startswith("custom.py:5:17: JAX201")


def test_stdin(project):
    r = run("-", "--stdin-filename", "pkg/mod.py", "--output-format", "concise", cwd=project, stdin=BAD)
    assert r.returncode == 1
    assert r.stdout.startswith("pkg/mod.py:6:8: JAX201")


def test_default_excludes_and_discovery(project):
    for d in (".venv", "build", "__pycache__", ".git"):
        (project / d).mkdir()
        (project / d / "x.py").write_text(BAD)
    (project / "pkg").mkdir()
    (project / "pkg" / "deep.py").write_text(BAD)
    (project / "notes.txt").write_text(BAD)
    r = run("--output-format", "concise", ".", cwd=project)
    files = sorted({l.split(":")[0] for l in r.stdout.splitlines()})
    assert files == ["bad.py", "pkg/deep.py"]


def test_bad_input_gets_a_diagnostic_and_the_run_goes_on(project):
    (project / "syntax.py").write_text("import jax\ndef f(:\n")
    (project / "latin.py").write_bytes(b"import jax\nx = '\xff\xfe'\n")
    (project / "binary.py").write_bytes(b"import jax\0\0\0")
    unreadable = project / "secret.py"
    unreadable.write_text(BAD)
    unreadable.chmod(0)
    (project / "loop").mkdir()
    os.symlink(project / "loop", project / "loop" / "again")
    r = run("--output-format", "concise", ".", cwd=project)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    err = r.stderr
    assert "syntax.py:2:7: E999 SyntaxError" in err
    assert "latin.py:2: E902 cannot decode file as utf-8" in err
    assert "binary.py: E902 binary file" in err
    if os.geteuid() != 0:  # root can read anything
        assert "secret.py: E902 cannot read file" in err
    assert "symbolic link loop" in err
    assert "bad.py:6:8: JAX201" in r.stdout


def test_hostile_input_does_not_take_the_run_down(project):
    (project / "nested.py").write_text("import jax\nx = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    (project / "chain.py").write_text("import jax\nx = " + " + ".join(["1"] * 10000) + "\n")
    r = run("--output-format", "concise", ".", cwd=project)
    assert r.returncode == 1
    assert "nested.py" in r.stderr and "chain.py" in r.stderr
    assert "Traceback" not in r.stderr
    assert "bad.py:6:8: JAX201" in r.stdout


def test_crashing_parser_costs_one_file(project, monkeypatch):
    """A worker that dies on a file (as libcst can, with a segfault) gives a diagnostic."""
    from jaxlint.config import Settings
    from jaxlint import runner

    (project / "boom.py").write_text("import jax\n# crash-me\n")
    real = runner.lint_file

    def crashing(path, settings):
        if path.endswith("boom.py"):
            os._exit(139)
        return real(path, settings)

    monkeypatch.setattr(runner, "lint_file", crashing)
    paths = [str(project / n) for n in ("bad.py", "boom.py", "good.py")]
    results = runner.lint_paths(paths, Settings(), jobs=2)
    assert [len(r.findings) for r in results] == [2, 0, 0]
    assert "crashed" in results[1].diagnostics[0].message


def test_parallel_output_is_identical_and_ordered(project):
    for i in range(12):
        (project / f"m{i:02}.py").write_text(BAD)
    one = run("--output-format", "concise", "--no-cache", "-j", "1", ".", cwd=project).stdout
    two = run("--output-format", "concise", "--no-cache", "-j", "2", ".", cwd=project).stdout
    assert one == two and len(one.splitlines()) == 26
    assert one.splitlines() == sorted(one.splitlines(), key=lambda l: (l.split(":")[0], int(l.split(":")[1])))


def test_rule_and_rules_commands(project):
    r = run("rule", "JAX201", cwd=project)
    assert r.returncode == 0 and r.stdout.startswith("# JAX201: traced-bool-conversion")
    assert "## Use instead" in r.stdout
    assert run("rule", "JAX999", cwd=project).returncode == 2
    r = run("rules", cwd=project)
    first = r.stdout.splitlines()[0]
    assert first.startswith("JAX100") and first.endswith("(opt-in)")  # the one opt-in rule
    assert any(l.startswith("JAX201  traced-bool-conversion") for l in r.stdout.splitlines())


def test_help_mentions_commands(project):
    r = run("--help", cwd=project)
    assert "jaxlint rule JAX201" in r.stdout
    r = run("check", "--help", cwd=project)
    assert "--output-format" in r.stdout and "IMPORTS your modules" in r.stdout


def test_files_without_jax_are_skipped(project):
    (project / "plain.py").write_text("def f(x):\n    if x > 0:\n        return x\n" + "x = (" * 1 + "1)\n")
    assert run("plain.py", cwd=project).returncode == 0
