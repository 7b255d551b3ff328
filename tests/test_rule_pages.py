"""Every rule has a page, and the page's examples are tests.

- Each `## Example` block is flagged exactly at its `# expect:` lines.
- Each `## Use instead` block is clean.
- Under real JAX (CPU), each Example block raises the error the rule names, and
  each Use-instead block runs without error.
"""

from __future__ import annotations

import pytest

from jaxlint.linter import expected_findings, lint_string
from jaxlint.pages import code_blocks, page_text, section
from jaxlint.rules import all_rules

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "References")
RULES = sorted(all_rules())


def _blocks(code, name):
    text = page_text(code)
    return code_blocks(text).get(name, []) if text else []


@pytest.mark.parametrize("code", RULES)
def test_page_has_every_section(code):
    text = page_text(code)
    assert text is not None, f"rules/{code}.md is missing"
    assert text.startswith(f"# {code}: {all_rules()[code].name}\n")
    for name in SECTIONS:
        assert section(text, name), f"rules/{code}.md has no '## {name}' section"
    assert _blocks(code, "Example"), f"rules/{code}.md has no python Example block"
    assert _blocks(code, "Use instead"), f"rules/{code}.md has no python Use-instead block"


def _cases(name):
    return [(code, i) for code in RULES for i, _ in enumerate(_blocks(code, name))]


@pytest.mark.parametrize("code,index", _cases("Example"))
def test_bad_example_flagged_at_marked_lines(code, index):
    block = _blocks(code, "Example")[index]
    expected = expected_findings(block)
    assert any(c == code for _, c in expected), "an Example must mark a line with this rule's code"
    found = {(f.line, f.code) for f in lint_string(block, path=f"{code}_example.py", select=["JAX"])}
    assert found == expected


@pytest.mark.parametrize("code,index", _cases("Use instead"))
def test_good_example_is_clean(code, index):
    block = _blocks(code, "Use instead")[index]
    assert lint_string(block, path=f"{code}_good.py", select=["JAX"]) == []


def _exec(block, code, kind):
    namespace = {"__name__": f"jaxlint_page_{code}_{kind}"}
    exec(compile(block, f"rules/{code}.md:{kind}", "exec", dont_inherit=True), namespace)


@pytest.mark.parametrize("code,index", [c for c in _cases("Example") if all_rules()[c[0]].raises])
def test_bad_example_raises_under_jax(code, index):
    pytest.importorskip("jax")
    block = _blocks(code, "Example")[index]
    expected = all_rules()[code].raises
    with pytest.raises(Exception) as info:
        _exec(block, code, "example")
    names = [c.__name__ for c in type(info.value).__mro__]
    assert expected in names, f"expected {expected}, got {type(info.value).__name__}: {info.value}"


@pytest.mark.parametrize("code,index", _cases("Use instead"))
def test_good_example_runs_under_jax(code, index):
    pytest.importorskip("jax")
    _exec(_blocks(code, "Use instead")[index], code, "good")
