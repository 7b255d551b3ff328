"""Every rule has a page, and the page's examples are tests.

- Each `## Example` block is flagged exactly at its `# expect:` lines.
- Each `## Use instead` block is clean.
- Under real JAX (CPU), each Example block raises the error the rule names, and
  each Use-instead block runs without error.
- Every fix, applied to the page's Example blocks (`--fix --unsafe-fixes`),
  gives the page's `## Fixed` blocks (one per Example the fixes change, in
  order, without the `# expect:` markers); the result lints clean, a second
  fix changes nothing, and it runs under JAX.
"""

from __future__ import annotations

import re

import pytest

from conftest import jax_modules_restored
from jaxlint.config import Settings
from jaxlint.fixes import fix_text

from jaxlint.linter import expected_findings, lint_string
from jaxlint.pages import code_blocks, page_text, section
from jaxlint.rules import all_rules

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "References")
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
    with jax_modules_restored():
        exec(compile(block, f"rules/{code}.md:{kind}", "exec", dont_inherit=True), namespace)


@pytest.mark.parametrize("code,index", [c for c in _cases("Example") if all_rules()[c[0]].raises])
def test_bad_example_raises_under_jax(code, index):
    pytest.importorskip("jax")
    block = _blocks(code, "Example")[index]
    rule = all_rules()[code]
    expected = (rule.raises, *rule.also_raises)
    with pytest.raises(Exception) as info:
        _exec(block, code, "example")
    names = [c.__name__ for c in type(info.value).__mro__]
    assert any(e in names for e in expected), \
        f"expected {' or '.join(expected)}, got {type(info.value).__name__}: {info.value}"


@pytest.mark.parametrize("code,index", _cases("Use instead"))
def test_good_example_runs_under_jax(code, index):
    pytest.importorskip("jax")
    _exec(_blocks(code, "Use instead")[index], code, "good")


_MARKS = re.compile(r"[ \t]*# expect: JAX\d{3}(?:\s*,\s*JAX\d{3})*")
_EVERY_RULE = Settings(select=("JAX",))


def _fixed_examples(code):
    """Each Example block the fixes change, fixed (safe and unsafe), markers stripped."""
    out = []
    for i, block in enumerate(_blocks(code, "Example")):
        result = fix_text(block, f"{code}_example.py", _EVERY_RULE, unsafe=True)
        if result.new != block:
            out.append((i, _MARKS.sub("", result.new)))
    return out


@pytest.mark.parametrize("code", RULES)
def test_fixes_give_the_fixed_examples(code):
    fixed = [text for _, text in _fixed_examples(code)]
    assert fixed == _blocks(code, "Fixed")


@pytest.mark.parametrize("code,index", [(c, i) for c in RULES for i, _ in enumerate(_blocks(c, "Fixed"))])
def test_fixed_example_is_clean_and_stable(code, index):
    block = _blocks(code, "Fixed")[index]
    assert lint_string(block, path=f"{code}_fixed.py", select=["JAX"]) == []
    again = fix_text(block, f"{code}_fixed.py", _EVERY_RULE, unsafe=True)
    assert again.new == block and not again.applied


@pytest.mark.parametrize("code,index", [(c, i) for c in RULES for i, _ in enumerate(_blocks(c, "Fixed"))])
def test_fixed_example_runs_under_jax(code, index):
    pytest.importorskip("jax")
    _exec(_blocks(code, "Fixed")[index], code, "fixed")
