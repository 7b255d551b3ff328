"""Issue 23: bounded time and memory on any file.

Large literal tables are set aside before parsing (and what is around them keeps
its lines, columns and findings); a file past the memory cap costs one diagnostic;
every parse is guarded against a crashing parser; deep nesting costs one function.
"""

from __future__ import annotations

import textwrap

import pytest

from jaxlint import data_statements
from jaxlint.config import Settings
from jaxlint.linter import lint_text

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
