"""The server's incremental analysis gives exactly the findings of a full run.

A seeded random sequence of edits (characters, lines, whole functions, jit decorators,
globals, noqa comments) is applied to a realistic module with many findings; after each
edit, the document's incremental result must equal a full lint of the same buffer,
fixes included. Some of the sequence is driven through the real server over stdio.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from jaxlint.config import Settings
from jaxlint.incremental import Document
from jaxlint.linter import _lint_text_here

ROOT = Path(__file__).resolve().parent.parent
# Fixtures with many findings of many rules, and the names they share (`loss_fn`, `step`,
# `key`, `params`) linking their functions across the module.
FIXTURES = ("train_step.py", "prng_training.py", "recompile_patterns.py", "impure_training.py",
            "transform_usage.py", "mutation_replay_buffer.py")


def module_text() -> str:
    return "\n\n".join((ROOT / "fixtures" / name).read_text() for name in FIXTURES)


def full(text: str, path: str, settings: Settings):
    return _lint_text_here(text, path, settings, None, True, None)


def snapshot(result):
    return ([(f.line, f.col, f.end_line, f.end_col, f.code, f.message, f.function, f.function_line,
              f.severity, f.fix) for f in result.findings],
            [(d.line, d.col, d.code, d.message) for d in result.diagnostics])


_DEF = re.compile(r"^(?:@.*\n)*(?:async )?def \w+\(.*?(?=^\S|\Z)", re.M | re.S)
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")


def edit(text: str, rng: random.Random) -> str:
    """One random edit of the kinds an editor makes, mostly ones that still parse."""
    lines = text.split("\n")
    kind = rng.choice(["char", "digit", "name", "line", "blank", "dup-def", "del-def", "jit",
                       "unjit", "global", "noqa", "delete-line", "swap-name"])
    row = rng.randrange(len(lines))
    line = lines[row]
    if kind == "char":
        col = rng.randrange(len(line) + 1)
        lines[row] = line[:col] + rng.choice("x1 (:.,)") + line[col:]
    elif kind == "digit":
        digits = [m.start() for m in re.finditer(r"\d", text)]
        if digits:
            at = rng.choice(digits)
            return text[:at] + rng.choice("0123456789") + text[at + 1:]
    elif kind in ("name", "swap-name"):
        names = list(_NAME.finditer(text))
        m = rng.choice(names)
        if kind == "name":
            return text[:m.end()] + "1" + text[m.end():]
        other = rng.choice(names).group()
        return text[:m.start()] + other + text[m.end():]
    elif kind == "line":
        indent = re.match(r"[ \t]*", line).group()
        lines.insert(row, indent + rng.choice(["x = 1", "print(x)", "y = jnp.zeros(3)", "pass",
                                               "key = jax.random.PRNGKey(0)", "if x > 0: pass"]))
    elif kind == "blank":
        lines[row:row] = [""] * rng.randint(1, 3)
    elif kind == "delete-line":
        del lines[row]
    elif kind in ("dup-def", "del-def"):
        defs = list(_DEF.finditer(text))
        if defs:
            m = rng.choice(defs)
            if kind == "dup-def":
                return text[:m.end()] + m.group() + text[m.end():]
            return text[:m.start()] + text[m.end():]
    elif kind == "jit":
        starts = [i for i, l in enumerate(lines) if l.startswith("def ")]
        if starts:
            lines.insert(rng.choice(starts), rng.choice(["@jax.jit", "@jax.vmap", "@partial(jax.jit, static_argnums=0)"]))
    elif kind == "unjit":
        decorators = [i for i, l in enumerate(lines) if l.startswith("@")]
        if decorators:
            del lines[rng.choice(decorators)]
    elif kind == "global":
        starts = [i for i, l in enumerate(lines) if l.startswith("def ") and l.rstrip().endswith(":")]
        if starts:
            at = rng.choice(starts)
            name = rng.choice(["params", "key", "step", "counter", "jnp"])
            lines[at + 1:at + 1] = [f"    global {name}", f"    {name} = {name}"]
    elif kind == "noqa":
        if "#" not in line and line.strip():
            lines[row] = line + rng.choice(["  # noqa", "  # noqa: JAX201", "  # noqa: JAX5", "  # noqa: JAX999"])
    return "\n".join(lines)


def check_sequence(seed: int, n_edits: int, settings: Settings, max_share: float = 1.0) -> tuple[int, int]:
    rng = random.Random(seed)
    text = module_text()
    path = "module.py"
    # Any share of the file re-analysed (not the server's half), so that more edits take the incremental path.
    doc = Document(max_share)
    incremental = 0
    good = text
    for i in range(n_edits):
        # A typist's text is mostly valid: an edit that breaks it is checked, then undone.
        text = edit(good, rng)
        want = full(text, path, settings)
        if not want.diagnostics:
            good = text
        got = doc.lint(text, path, settings)
        g, w = snapshot(got), snapshot(want)
        assert g == w, (f"seed {seed}, edit {i} ({doc.last}): only incremental "
                        f"{[x for x in g[0] if x not in w[0]]} {g[1]}; only full {[x for x in w[0] if x not in g[0]]} {w[1]}")
        incremental += doc.last[0] == "incremental"
    return n_edits, incremental


@pytest.mark.parametrize("seed, settings", [(1, Settings()), (2, Settings(extend_select=("JAX100",)))])
def test_random_edits_give_the_findings_of_a_full_run(seed, settings):
    n, incremental = check_sequence(seed, 30, settings)
    # The test must exercise the incremental path, not only the fallback.
    assert incremental >= 8, incremental


def _bench_server():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_server", ROOT / "benchmarks" / "bench_server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _position(text: str, offset: int) -> dict:
    before = text[:offset]
    return {"line": before.count("\n"), "character": offset - (before.rfind("\n") + 1)}


def _published(editor, uri: str, version: int) -> list:
    msg = editor.diagnostics(uri, version)
    return sorted((d["range"]["start"]["line"], d["range"]["start"]["character"], d["range"]["end"]["line"],
                   d["range"]["end"]["character"], d.get("code"), d["message"], d.get("severity"))
                  for d in msg["params"]["diagnostics"])


def test_the_server_over_stdio_publishes_the_diagnostics_of_a_full_run(tmp_path):
    """Edits sent as an editor sends them (one `didChange` range each) to the real server;
    after each, the same text opened as a new document (a full run, its first version)
    gets the same diagnostics."""
    pytest.importorskip("pygls")
    bench = _bench_server()
    editor = bench.Editor(debounce_ms=0)
    rng = random.Random(7)
    text = "\n\n".join((ROOT / "fixtures" / name).read_text() for name in FIXTURES[:3])
    try:
        rid = editor.send("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}},
                          request=True)
        editor.wait_for(lambda m: m.get("id") == rid)
        editor.send("initialized", {})
        uri = (tmp_path / "edited.py").as_uri()
        editor.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                              "text": text}})
        _published(editor, uri, 1)
        for version in range(2, 8):
            new = edit(text, rng)
            # The change as one range: the text between the common prefix and suffix.
            start = next((i for i, (a, b) in enumerate(zip(text, new)) if a != b), min(len(text), len(new)))
            end_old, end_new = len(text), len(new)
            while end_old > start and end_new > start and text[end_old - 1] == new[end_new - 1]:
                end_old, end_new = end_old - 1, end_new - 1
            editor.send("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": _position(text, start), "end": _position(text, end_old)},
                                    "text": new[start:end_new]}]})
            text = new
            got = _published(editor, uri, version)
            fresh = (tmp_path / f"fresh{version}.py").as_uri()
            editor.send("textDocument/didOpen", {"textDocument": {"uri": fresh, "languageId": "python",
                                                                  "version": 1, "text": text}})
            want = _published(editor, fresh, 1)
            assert want, "the module has findings to compare"
            assert got == want, f"edit {version}"
            editor.send("textDocument/didClose", {"textDocument": {"uri": fresh}})
    finally:
        editor.close()


STALE = """import jax


LR = 0.1


@jax.jit
def step(x):
    return x * LR


def other(y):
    return y + 1


step(1.0)
LR = 0.2
step(2.0)
"""


def test_an_edit_the_program_walk_could_take_past_its_limit_gets_a_full_run(monkeypatch):
    """engine/order.py stops after _MAX_EVENTS events: the document keeps a bound on the
    whole file's events, and an edit that could pass the limit is analysed in full."""
    import jaxlint.incremental as incremental

    settings = Settings()
    doc = Document(max_share=1.0)  # a small file: any share
    assert [f.code for f in doc.lint(STALE, "m.py", settings).findings] == ["JAX103"]
    events = doc._events
    assert events > 0
    edited = STALE.replace("y + 1", "y + 2")
    got = doc.lint(edited, "m.py", settings)
    assert doc.last[0] == "incremental"
    assert snapshot(got) == snapshot(full(edited, "m.py", settings))
    monkeypatch.setattr(incremental, "_MAX_EVENTS", doc._events + 1)
    again = STALE.replace("y + 1", "y + 3")
    got = doc.lint(again, "m.py", settings)
    assert doc.last == ("full", "the program-order walk may have reached its limit")
    assert snapshot(got) == snapshot(full(again, "m.py", settings))
