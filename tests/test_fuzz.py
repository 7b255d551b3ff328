"""Fuzzing the parse guard with mutations of the repository's own fixtures.

Each mutant (fixed seed) is linted in-process. What is required:

- jaxlint never raises and never reports JAX000 (an internal error);
- it agrees with Python's parser on which mutants parse: where
  `compile(..., ast.PyCF_ONLY_AST)` accepts the text, jaxlint reports no E999
  (libcst must not reject what Python accepts); where it raises SyntaxError,
  jaxlint reports exactly one E999, on Python's line.

`compile()` without PyCF_ONLY_AST also runs the symbol-table checks ("'return'
outside function", "nonlocal at module level"); those are not parse errors, and
jaxlint lints such files as Python's parser sees them, so the agreement is with
the parse step only. CPython rejecting a tree for its depth (RecursionError,
"too many nested parentheses") counts as a parse failure, also reported as E999.
"""

from __future__ import annotations

import ast
import random
import warnings
from pathlib import Path

import pytest

from jaxlint.config import Settings
from jaxlint.linter import lint_text

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").glob("*.py"))
MUTANTS = 500
SEED = 12

_NOISE = ["(", ")", "[", "]", "{", "}", ":", ",", "=", "'", '"', '"""', "\\", "#", "\t", "    ",
          "\f", "\x85", "\x1c", "lambda", "jax.jit(", "@", "*", "**", "if ", "else", "\n", "\r",
          "yield ", "await ", "async ", "not ", "x.at[0].set(", "é"]


def _mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        if len(lines) < 2:
            break
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        op = rng.randrange(6)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(j, lines[i])
        elif op == 2:
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            lines[i] = " " * rng.choice([1, 2, 4, 8]) + lines[i]
        elif op == 4:
            lines[i] = lines[i].lstrip()
        else:
            at = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:at] + rng.choice(_NOISE) + lines[i][at:]
    return "\n".join(lines)


def _python_parses(text: str):
    """None when Python's parser accepts the text, else the SyntaxError's line (or 0)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<mutant>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        return exc.lineno or 0
    except (RecursionError, MemoryError, ValueError):
        return 0
    return None


def _mutants():
    rng = random.Random(SEED)
    sources = [p.read_text(encoding="utf-8") for p in FIXTURES]
    return [_mutate(rng, rng.choice(sources)) for _ in range(MUTANTS)]


def test_fixtures_exist():
    assert len(FIXTURES) >= 5


def test_mutated_fixtures_never_crash_and_agree_with_python():
    settings = Settings()
    parsed = rejected = 0
    for n, text in enumerate(_mutants()):
        result = lint_text(text, f"mutant{n}.py", settings)
        codes = [d.code for d in result.diagnostics]
        assert "JAX000" not in codes, (n, result.diagnostics)
        bad_line = _python_parses(text)
        if bad_line is None:
            parsed += 1
            assert "E999" not in codes, (n, result.diagnostics)
        else:
            rejected += 1
            [e999] = [d for d in result.diagnostics if d.code == "E999"]
            if bad_line:
                assert e999.line == bad_line, (n, e999, bad_line)
    # The mutations exercise both sides of the agreement.
    assert parsed > MUTANTS // 10 and rejected > MUTANTS // 10, (parsed, rejected)
