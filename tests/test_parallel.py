"""A large file analysed in two halves on two cores has exactly the findings of one run.

The halves are groups of linked top-level statements (jaxlint.parallel); the checks
below lower the size past which a file is split, so that a realistic module of the
fixtures, and random edits of it, are split, and compare with the whole run.
"""

from __future__ import annotations

import ast
import os
import random
import re

import pytest
from test_server_incremental import FIXTURES, ROOT, edit, snapshot

from jaxlint import incremental, parallel, source
from jaxlint.config import Settings
from jaxlint.linter import _lint_text_here


def module_text() -> str:
    """The incremental test's module of fixtures, each fixture's own module-level names
    renamed apart (`step` becomes `step_2`) and the imports once at the top, so that the
    fixtures fall into several groups."""
    imports, parts = [], []
    for k, name in enumerate(FIXTURES):
        text = (ROOT / "fixtures" / name).read_text()
        tree = ast.parse(text)
        bound = {node.id for stmt in tree.body if not isinstance(stmt, (ast.Import, ast.ImportFrom))
                 for node in ast.walk(stmt) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
        bound |= {stmt.name for stmt in tree.body if hasattr(stmt, "name")}
        if bound:
            text = re.sub(r"\b(%s)\b" % "|".join(map(re.escape, sorted(bound))), rf"\g<1>_{k}", text)
        lines = text.split("\n")
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for n in range(stmt.lineno - 1, stmt.end_lineno):
                    if lines[n] not in imports:
                        imports.append(lines[n])
                    lines[n] = ""
        parts.append("\n".join(lines))
    return "\n".join(imports) + "\n\n" + "\n\n".join(parts)


def lint(text: str, settings: Settings, two_cores: bool, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(parallel, "SPLIT_LINES", 0)
        m.setattr(parallel, "_core_free", lambda: two_cores)
        m.setattr(source, "_use_helper", lambda pieces: False)  # the parse's own helper
        return snapshot(_lint_text_here(text, "module.py", settings, None, True, None))


def halves(text: str):
    vetted = source.vet(text, "module.py")
    return parallel._halves(text, *vetted)


@pytest.mark.parametrize("settings", [Settings(), Settings(extend_select=("JAX100",))])
def test_random_edits_of_a_split_module_give_the_findings_of_one_run(settings, monkeypatch):
    split = valid = 0
    for seed in range(16):
        rng = random.Random(seed)
        text = module_text()
        for _ in range(seed % 4):  # the module itself, and up to three random edits of it
            text = edit(text, rng)
        whole = lint(text, settings, False, monkeypatch)
        if whole[1]:
            continue  # a syntax error: no halves
        valid += 1
        split += halves(text) is not None
        assert lint(text, settings, True, monkeypatch) == whole, f"seed {seed}"
    assert split >= valid * 2 / 3, (split, valid)  # the halves, not the fallback, were checked


def test_each_statement_s_findings_come_from_one_half():
    text = module_text()
    first, second = halves(text)
    lines = len(incremental._LINE.findall(text))
    own = [first.owns(n) + second.owns(n) for n in range(1, lines + 1)]
    assert set(own) == {1}  # every line is one half's
    assert sum(first.owns(n) for n in range(1, lines + 1)) > lines / 4
    # The halves keep the document's lines: the other half's statements are blank lines.
    assert first.text.count("\n") == second.text.count("\n") == text.count("\n")


LINKED = """\
import jax

SCALE = 2.0


def helper(x):
    return x * SCALE


@jax.jit
def step(x):
    return helper(x)


class Box:
    def put(self, v):
        self.value = v


def read(b):
    return b.value


def alone(y):
    z = y + 1
    return z
"""


def test_linked_statements_share_a_group():
    tree = source.vet(LINKED, "m.py")[1]
    lines = incremental._LINE.findall(LINKED)
    spans = incremental._spans(tree.body, lines, 0, len(lines))
    group = incremental.link_groups(spans)
    names = [sp.text.split("\n")[0] for sp in spans]
    by_name = dict(zip(names, group))
    # A global and its reader, a helper and its caller; an attribute and its writer.
    assert by_name["SCALE = 2.0"] == by_name["def helper(x):"] == by_name["@jax.jit"]
    assert by_name["class Box:"] == by_name["def read(b):"]
    assert len({by_name["def alone(y):"], by_name["class Box:"], by_name["@jax.jit"]}) == 3


def test_a_helper_that_dies_leaves_its_half_to_this_process(monkeypatch):
    text = module_text()
    whole = lint(text, Settings(), False, monkeypatch)
    parent = os.getpid()
    real = parallel._analyse_half

    def only_here(*args):
        if os.getpid() != parent:
            os._exit(3)
        return real(*args)

    monkeypatch.setattr(parallel, "_analyse_half", only_here)
    assert lint(text, Settings(), True, monkeypatch) == whole


def test_one_helper_at_a_time(monkeypatch):
    # A half's helper starts no parse helper of its own, nor does this process beside it:
    # two cores, two processes.
    import sys
    import threading

    from jaxlint.processes import Helper

    if threading.active_count() > 1:
        pytest.skip("a forked helper needs a process without other threads")
    monkeypatch.delitem(sys.modules, "jax", raising=False)
    monkeypatch.setattr(source, "_core_to_spare", lambda: True)
    assert source._use_helper(2)
    helper = Helper(source._use_helper, 2)
    assert not source._use_helper(2)
    assert helper.result(60) is False
    assert source._use_helper(2)


def test_a_half_that_starts_with_the_other_half_s_lines_is_parsed_in_pieces(monkeypatch):
    # The second half's module starts with the first half's functions as blank lines: a
    # piece of blank lines only is no module, and would have sent the half to one parse
    # of all of it (the memory of a whole file's parse, which pieces avoid).
    text = "".join(f"@jax.jit\ndef f{i}(x):\n    if x.sum() > {i}:\n        return x\n    return -x\n\n\n"
                   for i in range(30)) + "import jax\n"
    whole = lint(text, Settings(), False, monkeypatch)
    monkeypatch.setattr(source, "CHUNKED_PARSE_LINES", 40)
    assert halves(text) is not None

    def no_whole_parse(*args):
        raise AssertionError("a half was parsed whole")

    monkeypatch.setattr(source, "_parse_libcst", no_whole_parse)
    assert lint(text, Settings(), True, monkeypatch) == whole
    assert len(whole[0]) == 30
