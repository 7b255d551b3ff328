"""Issue 23: bounded time and memory on any file.

Large literal tables are set aside before parsing (and what is around them keeps
its lines, columns and findings); a file past the memory cap costs one diagnostic;
every parse is guarded against a crashing parser; deep nesting costs one function.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jaxlint import data_statements
from jaxlint.config import Settings
from jaxlint.linter import lint_string, lint_text

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "jaxlint", "check", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=300)

BUG = textwrap.dedent("""\


    import jax


    @jax.jit
    def step(x):
        if x.sum() > 0:
            return x
        return -x
""")


def rows(n: int, newline: str = "\n") -> str:
    return "".join(f"    [{i}, {i * 0.5}, 'r{i}', None, (True, -{i}), {{'k': b'v'}}],{newline}" for i in range(n))


def findings(text: str) -> list[tuple[int, int, int, int, str]]:
    result = lint_text(text, "m.py", Settings())
    assert result.diagnostics == []
    return [(f.line, f.col, f.end_line, f.end_col, f.code) for f in result.findings]


def unchanged(text: str, monkeypatch) -> bool:
    """The findings with the data set aside are those of a parse of all of it."""
    ours = findings(text)
    with monkeypatch.context() as m:
        m.setattr(data_statements, "MIN_CHARS", 10 ** 9)
        assert data_statements.set_aside(text) is None
        whole = findings(text)
    return ours == whole and ours != []


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_table_is_set_aside_and_the_bug_below_it_keeps_its_line(newline, monkeypatch):
    text = ('"""Doc."""\n\nTABLE = [\n' + rows(300) + "]  # the table\n" + BUG).replace("\n", newline)
    new, _ = data_statements.set_aside(text)
    assert len(new) < len(text) / 10
    assert new.count(newline) == text.count(newline)
    assert "TABLE = [*()" in new
    assert unchanged(text, monkeypatch)


def test_a_one_line_list_and_a_bare_literal_are_set_aside(monkeypatch):
    text = "X = [" + ", ".join(str(i) for i in range(3000)) + "]\n{" + \
        ", ".join(f"'k{i}': ({i}, -1.5e-3)" for i in range(500)) + "}\n" + BUG
    new, _ = data_statements.set_aside(text)
    assert new.splitlines()[:2] == ["X = [*()]", "{**{}}"]
    assert unchanged(text, monkeypatch)


def test_the_name_is_still_known_as_a_list(monkeypatch):
    # JAX208 fires on a name only ever bound to a list display: the placeholder is one.
    text = "import jax.numpy as jnp\n\nLOSSES = [\n" + "    0.5,\n" * 1000 + "]\nm = jnp.mean(LOSSES)\n"
    assert data_statements.set_aside(text) is not None
    assert [f[-1] for f in findings(text)] == ["JAX208"]
    assert unchanged(text, monkeypatch)


@pytest.mark.parametrize("what, text", [
    ("inside a string", 'DOC = """\nX = [\n' + rows(200) + ']\n"""\n'),
    ("an argument", "f(\n[\n" + rows(200) + "])\n"),
    ("a name inside", "X = [\n" + rows(200) + "    [y],\n]\n"),
    ("a call inside", "X = [\n" + rows(200) + "    list(),\n]\n"),
    ("an f-string inside", "X = [\n" + rows(200) + "    f'{y}',\n]\n"),
    ("a statement after it", "X = [\n" + rows(200) + "]; y = 1\n"),
    ("small", "X = [\n" + rows(10) + "]\n"),
])
def test_what_is_not_data_is_parsed_as_it_is(what, text):
    assert data_statements.set_aside(text + BUG) is None, what


def test_a_syntax_error_inside_the_data_is_still_python_s():
    text = "X = [\n" + rows(200) + "    1 2,\n]\n" + BUG
    result = lint_text(text, "m.py", Settings())
    [d] = result.diagnostics
    assert (d.code, d.line) == ("E999", 202)


def test_non_ascii_names_and_strings(monkeypatch):
    text = "Δ = [\n" + rows(100) + "    'ünïcode ✓',\n]\nα = 1\n" + BUG
    new, tree = data_statements.set_aside(text)
    assert new.startswith("Δ = [*()")
    assert unchanged(text, monkeypatch)


# ------------------------------------------------------------------ memory cap
def test_memory_limit_is_read_from_the_config_and_the_command_line(tmp_path):
    from jaxlint.config import ConfigError, DEFAULT_MEMORY_LIMIT, load_settings, parse_memory

    assert Settings().memory_limit == DEFAULT_MEMORY_LIMIT == 2 * 1024 ** 3
    assert [parse_memory(v, "x") for v in (512, "512MiB", "1.5G", "none", 0)] == \
        [512 * 2 ** 20, 512 * 2 ** 20, int(1.5 * 2 ** 30), None, None]
    for bad in ("lots", True, "-1", "2T"):
        with pytest.raises(ConfigError, match="memory-limit"):
            parse_memory(bad, "x")
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nmemory-limit = "300MiB"\n')
    assert load_settings(str(tmp_path)).memory_limit == 300 * 2 ** 20


def _big_module(tmp_path) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_large_file import generate
    finally:
        sys.path.pop(0)
    (tmp_path / "big.py").write_text(generate(20_000, False))
    (tmp_path / "bad.py").write_text(BUG)


@pytest.mark.parametrize("where", ["cli", "config"])
def test_a_file_over_the_memory_limit_is_one_diagnostic_and_the_run_goes_on(tmp_path, where):
    _big_module(tmp_path)
    args = ["--memory-limit", "60MiB"] if where == "cli" else []
    if where == "config":
        (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nmemory-limit = 60\n')
    r = run("--no-cache", "--output-format", "concise", "-j", "1", *args, "big.py", "bad.py", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.startswith("bad.py:8:8: JAX201 "), r.stdout
    assert r.stderr.splitlines()[0] == ("big.py: E902 needs more than 60 MiB of memory to analyse "
                                        "(the memory-limit setting); skipped"), r.stderr
    assert "memory allocation" not in r.stderr and "Traceback" not in r.stderr
    if where == "cli":  # under the default limit the same file is linted
        r = run("--no-cache", "--output-format", "concise", "big.py", cwd=tmp_path)
        assert "E902" not in r.stderr and "JAX201" in r.stdout


def test_the_python_api_is_capped_too(tmp_path):
    # In a fresh interpreter, as a program calling the API starts: the cap limits how far
    # the analysing child may grow its address space, and a long-lived test worker whose
    # heap already holds freed memory (pytest-xdist) would let the child reuse it unseen.
    _big_module(tmp_path)
    script = textwrap.dedent(f"""
        from dataclasses import replace
        from pathlib import Path
        from jaxlint.config import Settings
        from jaxlint.linter import lint_text
        settings = replace(Settings(), memory_limit=60 * 2 ** 20)
        text = Path({str(tmp_path / "big.py")!r}).read_text()
        for d in lint_text(text, "big.py", settings).diagnostics:
            print(d.message)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "needs more than 60 MiB of memory to analyse (the memory-limit setting); skipped"]


# --------------------------------------------------------- every parse guarded
def _and_chain(n: int) -> str:
    return "import jax\nx = " + " and ".join(["a"] * n) + "\n"


def test_lint_string_and_lint_text_survive_a_parser_crash():
    # libcst's native parser overflows the C stack on this (SIGSEGV): in-process, the
    # interpreter running the API (a test runner, an editor plugin) would die with it.
    result = lint_text(_and_chain(8000), "hostile.py", Settings())
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("E902", "the parser crashed on this file (SIGSEGV); skipped")]
    with pytest.raises(ValueError, match="the parser crashed"):
        lint_string(_and_chain(8000))
    assert [f.code for f in lint_string(BUG)] == ["JAX201"]  # and the process goes on


def test_confirm_planning_survives_a_parser_crash():
    from jaxlint.confirm.plan import file_plans

    with pytest.raises(ValueError, match="the parser crashed on this file"):
        file_plans("hostile.py", [], text=_and_chain(8000))
    with pytest.raises(ValueError, match="^cannot parse"):
        file_plans("broken.py", [], text="def f(:\n")


# ------------------------------------------------ deep nesting costs one function
def test_deep_nesting_in_one_function_costs_that_function_only():
    deep = "import jax\n\n\n@jax.jit\ndef deep(x):\n    y = " + " and ".join(["x"] * 2000) + "\n    return y\n"
    fine = "\n\n@jax.jit\ndef g(x):\n    return bool(x)\n"  # found by the pass after the deep one's
    # Whether 2,000 `and`s overflow depends on the recursion limit, which earlier tests
    # (or imports) may have raised: pin Python's default for this call.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        result = lint_text(deep + fine, "m.py", Settings())
    finally:
        sys.setrecursionlimit(limit)
    assert [(f.line, f.code) for f in result.findings] == [(12, "JAX201")]
    assert [(d.code, d.line, d.message) for d in result.diagnostics] == [
        ("E902", 5, "function `deep` (lines 5-7) is nested too deeply for JAX201 to analyse; "
                    "its findings there are skipped")]


def _long_module(functions: int) -> str:
    return "import jax\n\n" + "".join(
        f"@jax.jit\ndef f{i}(x):\n    if x.sum() > {i}:\n        return x\n    return -x\n\n\n"
        for i in range(functions))


def test_a_long_file_is_parsed_on_two_cores_with_the_same_findings(monkeypatch):
    # Past CHUNKED_PARSE_LINES a file is parsed in pieces, the last ones in a forked
    # helper when a core is free: the helper's trees make the same module, and the same
    # findings.
    from jaxlint import source

    monkeypatch.setattr(source, "CHUNKED_PARSE_LINES", 40)
    text = _long_module(30)
    here = []  # pieces parsed in this process (the helper's list is its own)
    real = source._parse_list
    monkeypatch.setattr(source, "_parse_list", lambda texts: here.extend(texts) or real(texts))
    monkeypatch.setattr(source, "_use_helper", lambda pieces: pieces > 1)
    two, _ = source.parse_source_and_tree(text, "m.py")
    assert two.code == text
    two_cores = findings(text)
    parsed_here = len(here)
    here.clear()
    monkeypatch.setattr(source, "_use_helper", lambda pieces: False)
    one, _ = source.parse_source_and_tree(text, "m.py")
    assert 0 < parsed_here < len(here), "the helper parsed none of the pieces"
    assert len(one.body) == len(two.body) == 31
    assert findings(text) == two_cores and len(two_cores) == 30


def test_a_helper_that_fails_leaves_its_pieces_to_this_process(monkeypatch):
    from jaxlint import source

    monkeypatch.setattr(source, "CHUNKED_PARSE_LINES", 40)
    monkeypatch.setattr(source, "_use_helper", lambda pieces: pieces > 1)
    parent = os.getpid()
    real = source._parse_list

    def only_here(texts):
        if os.getpid() != parent:
            os._exit(3)  # the helper dies before it answers
        return real(texts)

    monkeypatch.setattr(source, "_parse_list", only_here)
    text = _long_module(30)
    module, _ = source.parse_source_and_tree(text, "m.py")
    assert module.code == text and len(module.body) == 31


def test_the_helper_is_started_only_where_a_core_is_free(monkeypatch):
    # It costs CPU time (pickling its trees) that only a free core makes worth paying.
    from jaxlint import source

    monkeypatch.setattr(source, "_cores", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))  # this lint, alone
    assert source._core_to_spare()
    monkeypatch.setattr(os, "getloadavg", lambda: (2.0, 2.0, 2.0))  # two workers, or others
    assert not source._core_to_spare()
    monkeypatch.setattr(source, "_cores", lambda: 1)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert not source._core_to_spare()
