"""The rule pages' examples as confirm cases: each Example block's findings must be confirmed,
and no line of a Use-instead block may be (a decoy finding of the page's rule is made at each of
its statement lines, carrying the confirm details the rule gave on the Example).

One confirm run (one worker, one fork per file) serves every page: see tests/test_confirm_pages.py
and benchmarks/confirm_bench.py --pages.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from pathlib import Path
from typing import Optional

from jaxlint.finding import Finding
from jaxlint.linter import expected_findings, lint_string
from jaxlint.pages import code_blocks, page_text
from jaxlint.rules import all_rules


@dataclasses.dataclass
class Case:
    code: str  # the page's rule
    kind: str  # "bad" or "fine"
    index: int
    path: str
    findings: list[Finding]

    @property
    def name(self) -> str:
        return f"{self.code}-{self.kind}-{self.index}"


def _functions(tree: ast.Module) -> list[tuple[int, int, str, int]]:
    """(first line, last line, qualname, def line) of every function, innermost last."""
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = f"{prefix}{child.name}"
                out.append((child.lineno, child.end_lineno, q, child.lineno))
                visit(child, q + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def _statement_lines(tree: ast.Module) -> list[int]:
    """Lines where a statement that does something starts (no imports, defs, bare names)."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef,
                             ast.AsyncFunctionDef, ast.Pass, ast.Global, ast.Nonlocal)):
            continue
        if isinstance(node, ast.stmt):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # a docstring
            lines.add(node.lineno)
    return sorted(lines)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*|\d+", text.split("#")[0]))


def decoys(path: str, text: str, code: str, template: Optional[Finding],
           bad_lines: list[str], limit: Optional[int] = None) -> list[Finding]:
    """A finding of `code` at the statement lines of a fine example; with `limit`, only at the
    lines most like the Example's flagged lines (the fix of the flagged line, usually)."""
    tree = ast.parse(text)
    funcs = _functions(tree)
    confirm = dict(template.confirm) if template is not None else {}
    lines = _statement_lines(tree)
    if limit is not None:
        source = text.splitlines()
        want = set().union(*(_words(b) for b in bad_lines)) if bad_lines else set()
        lines = sorted(sorted(lines, key=lambda n: -len(_words(source[n - 1]) & want))[:limit])
    out = []
    for line in lines:
        inside = [f for f in funcs if f[0] <= line <= f[1] and line != f[0]]
        fn = inside[-1] if inside else None
        details = dict(confirm)
        if "start_line" in details:
            # The clock read that started the timer, as the rule gives it: the last one above.
            details["start_line"] = _last_clock_read(text, line)
        out.append(Finding(path=path, line=line, col=1, end_line=line, end_col=1, code=code,
                           message="decoy", function=fn[2] if fn else None,
                           function_line=fn[3] if fn else None, confirm=details))
    return out


_CLOCK_READ = re.compile(r"^\s*\w+\s*=\s*time\.(time|perf_counter|monotonic)(_ns)?\(\)")


def _last_clock_read(text: str, line: int) -> Optional[int]:
    """The last line above `line` that starts a timer (`t0 = time.perf_counter()`)."""
    lines = text.splitlines()[:line - 1]
    return next((n for n in range(len(lines), 0, -1) if _CLOCK_READ.match(lines[n - 1])), None)


def page_cases(folder: str, codes=None, limit: Optional[int] = None) -> list[Case]:
    """Write every page's examples under `folder`, lint the bad ones, make decoys for the fine."""
    cases = []
    for code in sorted(codes or all_rules()):
        blocks = code_blocks(page_text(code) or "")
        template = None
        bad_lines: list[str] = []
        for i, text in enumerate(blocks.get("Example", [])):
            path = os.path.join(folder, f"{code}_bad_{i}.py")
            Path(path).write_text(text, encoding="utf-8")
            marked = expected_findings(text)
            found = [f for f in lint_string(text, path=path, select=["JAX"])
                     if (f.line, f.code) in marked and f.code == code]
            template = template or (found[0] if found else None)
            bad_lines += [text.splitlines()[f.line - 1] for f in found]
            cases.append(Case(code, "bad", i, path, found))
        for i, text in enumerate(blocks.get("Use instead", [])):
            path = os.path.join(folder, f"{code}_fine_{i}.py")
            Path(path).write_text(text, encoding="utf-8")
            cases.append(Case(code, "fine", i, path,
                              decoys(path, text, code, template, bad_lines, limit)))
    return cases
