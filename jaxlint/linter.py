"""Lint one file: read, parse once, build the model, run the rules, apply noqa.

This is the one engine behind the CLI, the flake8 plugin and confirm mode.
"""

from __future__ import annotations

import gc
import re
import traceback
from typing import Iterable, Optional, Union

import libcst as cst


from jaxlint import noqa
from jaxlint.config import Settings
from jaxlint.engine import FileModel
from jaxlint.engine.model import CellStarts
from jaxlint.finding import Diagnostic, FileResult, Finding
from jaxlint.rules import Report, Rule, all_rules
from jaxlint.source import (MAX_FILE_BYTES, PieceCache, content_digest, parse_source_and_tree, read_bytes,
                            read_source, source_lines)


def mentions_jax(text: str, extra_roots: Iterable[str] = ()) -> bool:
    """Cheap pre-filter: files that never mention jax are not parsed."""
    if "jax" in text:
        return True
    return any(root in text for root in extra_roots)


def _extra_roots(settings: Settings) -> set[str]:
    return {name.split(".")[0] for name, _ in settings.extend_transforms}


def lint_file(path: str, settings: Settings, data: Optional[bytes] = None) -> FileResult:
    """Lint a file, or `data` as the content of `path` (standard input)."""
    if path.endswith(".ipynb"):
        from jaxlint import notebook

        return notebook.lint_notebook(path, settings, data)
    if data is None:
        data = read_bytes(path, MAX_FILE_BYTES)
        if isinstance(data, Diagnostic):
            return FileResult(path, diagnostics=[data])
    text = read_source(path, data)
    if isinstance(text, Diagnostic):
        result = FileResult(path, diagnostics=[text])
    else:
        result = lint_python(text, path, settings)
    result.sha256 = content_digest(data)
    return result


def lint_python(text: str, path: str, settings: Settings, codes: Optional[frozenset[str]] = None,
                apply_noqa: bool = True) -> FileResult:
    """A Python file's text: a cell script (`# %%` marker lines) is run cell by cell by an
    IPython kernel, so its cells are linted as a notebook's are (magics valid), at the
    file's own lines; any other text is one module (`lint_text`)."""
    from jaxlint import notebook

    cells = notebook.script_cells(text)
    if cells is not None:
        return notebook.lint_cell_script(path, text, settings, cells, codes, apply_noqa)
    return lint_text(text, path, settings, codes, apply_noqa)


def lint_text(text: str, path: str, settings: Settings,
              codes: Optional[frozenset[str]] = None, apply_noqa: bool = True,
              pieces: Optional[PieceCache] = None, cells: CellStarts = None) -> FileResult:
    """`apply_noqa=False` leaves line `# noqa` to the caller (flake8 applies it itself).
    `cells`: `text` is the code cells of a notebook or a cell script, run in order by an
    IPython kernel: the first line of each cell (`FileModel.cell_starts`).

    `pieces` keeps parsed top-level statements from one call to the next (the language
    server's): only the statements that changed are parsed again; the findings are the same.

    Called in a process whose crash would cost more than this file (the Python API, a
    test), the analysis runs in a forked child, as the command line's workers do: a
    parser crash, an overrun of the time limit or of `settings.memory_limit` becomes a
    diagnostic. In a worker (disposable already) it runs here, and so it does with
    `pieces`, which must outlive the call (the server's analysis process is a worker).
    """
    from jaxlint import processes
    from jaxlint.runner import FILE_TIMEOUT

    if pieces is not None:
        return _lint_text_here(text, path, settings, codes, apply_noqa, pieces, cells)
    try:
        return processes.isolated(_lint_text_here, text, path, settings, codes, apply_noqa, pieces, cells,
                                  timeout=FILE_TIMEOUT, memory=settings.memory_limit)
    except processes.IsolationFailed as exc:
        if exc.raised:
            return FileResult(path, diagnostics=[Diagnostic(
                path, f"internal error: {exc}; please report it", code="JAX000")])
        return FileResult(path, diagnostics=[Diagnostic(path, str(exc))])


def _lint_text_here(text: str, path: str, settings: Settings, codes: Optional[frozenset[str]],
                    apply_noqa: bool, pieces: Optional[PieceCache], cells: CellStarts = None) -> FileResult:
    # A parse and a model make millions of objects and few cycles: Python's cyclic
    # collector, run again and again as they pile up, costs a third of the time.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _lint_text(text, path, settings, codes, apply_noqa, pieces, cells)
    finally:
        if enabled:
            gc.enable()


def _lint_text(text: str, path: str, settings: Settings,
               codes: Optional[frozenset[str]], apply_noqa: bool,
               pieces: Optional[PieceCache] = None, cells: CellStarts = None) -> FileResult:
    if not needs_analysis(text, settings):
        return FileResult(path)
    if pieces is None:
        from jaxlint.parallel import analyse_on_two_cores

        return analyse_on_two_cores(text, path, settings, codes, apply_noqa, cells)
    return analyse_text(text, path, settings, codes, apply_noqa, pieces, cells=cells)


def needs_analysis(text: str, settings: Settings) -> bool:
    """Whether the rules run on `text` at all (a file that never mentions jax, or is exempt, has no findings)."""
    return mentions_jax(text, _extra_roots(settings)) and not noqa.file_is_exempt(text)


def analyse_text(text: str, path: str, settings: Settings, codes: Optional[frozenset[str]] = None,
                 apply_noqa: bool = True, pieces: Optional[PieceCache] = None,
                 document_line=None, on_model=None, vetted=None, cells: CellStarts = None) -> FileResult:
    """Parse, model and rules on `text`, with no pre-filter, in this process (the caller
    disables the cyclic collector, as `_lint_text_here` does). `document_line` maps the
    lines of `text` to those of the document it was cut from, for the lines messages name;
    `on_model` is called with the model once the rules ran; `vetted`: `source.vet`'s
    answer for `text`, when the caller has it; `cells`: as for `lint_text`."""
    result = FileResult(path)
    module, tree = parse_source_and_tree(text, path, pieces, vetted)
    if isinstance(module, Diagnostic):
        result.diagnostics.append(module)
        return result
    if codes is None:
        codes = settings.codes_for(path)
    try:
        model = FileModel.build(module, path, settings.transforms(), cells=cells)
        model.text = text
        model.ast_tree = tree
        model.document_line = document_line
    except RecursionError:
        result.diagnostics.append(Diagnostic(path, "expression too deeply nested to analyse; skipped"))
        return result
    try:
        result = _check(model, text, path, settings, codes, apply_noqa, result)
        if on_model is not None:
            on_model(model)
        return result
    finally:
        _release(model)


def _release(model: FileModel) -> None:
    """Break the model's reference cycles (functions and scopes, the model and its
    positions), so that reference counting frees the file's objects now. Left to the
    cyclic collector, which runs once the analysis is over, they cost it a fifth of a
    run: it walks every object the analysis made, in passes of 80 ms."""
    for info in model.functions + model.classes:
        vars(info).clear()
    vars(model).clear()


def _check(model: FileModel, text: str, path: str, settings: Settings, codes: frozenset[str],
           apply_noqa: bool, result: FileResult) -> FileResult:
    reports: list[tuple[Rule, Report]] = []
    for code, rule_cls in all_rules().items():
        if code not in codes:
            continue
        try:
            rule = rule_cls(model, settings)
            reports.extend((rule, r) for r in rule.check())
        except RecursionError:
            # Deeply nested code, not a bug: only the functions too deep for this rule lose
            # its findings.
            rule_reports, skipped = _check_around_deep_code(rule_cls, model, settings)
            reports.extend(rule_reports)
            result.diagnostics.extend(_too_deep(path, model, code, skipped))
        except MemoryError:
            raise  # the file is over the memory cap: the worker reports it
        except Exception as exc:  # a bug in a rule must not stop the run
            tb = traceback.extract_tb(exc.__traceback__)[-1]
            result.diagnostics.append(Diagnostic(
                path, f"internal error in {code}: {type(exc).__name__}: {exc} "
                      f"({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno}); please report it",
                code="JAX000"))
    # An error a test expects (`with pytest.raises(ValueError): f(x)`) is what it checks.
    reports = [(rule, r) for rule, r in reports
               if not (r.confirm.get("expected") and model.expects_error(r.node))
               and not (rule.traced_code and not model.traced_here(r.node))]
    check_noqa = apply_noqa and UNUSED_NOQA in codes
    if not reports and not check_noqa:
        return result
    every = _to_findings(path, text, model, reports, apply_noqa=False)
    result.findings = _without_noqa(every, text) if apply_noqa else every
    if check_noqa:
        from jaxlint.fixes.noqa import unused_noqa_findings

        result.findings = sorted(result.findings + unused_noqa_findings(path, text, every, codes),
                                 key=lambda f: f.sort_key)
    return result


# A rule that still overflows the stack after this many functions were set aside loses
# its findings in the whole file.
_MAX_SKIPPED = 8


def _check_around_deep_code(rule_cls: type[Rule], model: FileModel, settings: Settings):
    """Run a rule that overflowed the stack again, with `model.nodes` passing over the
    function (or top-level statement) whose node it was on when it overflowed, until it
    completes. Its reports, and the functions passed over ([None]: the whole file)."""
    skipped: list = []
    blocked: dict = {}  # node -> whether it lies in a skipped function
    parents = model.parents
    last: list = [None]
    all_nodes = model.nodes

    def in_skipped(node) -> bool:
        path = []
        cur = node
        while cur is not None and cur not in blocked:
            path.append(cur)
            cur = parents.get(cur)
        verdict = blocked.get(cur, False)
        for n in reversed(path):
            verdict = verdict or n in skipped
            blocked[n] = verdict
        return verdict

    def nodes(*types):
        for n in all_nodes(*types):
            if skipped and in_skipped(n):
                continue
            last[0] = n
            yield n

    model.nodes = nodes  # this model only, for the reruns
    try:
        while len(skipped) < _MAX_SKIPPED:
            last[0] = None
            rule = rule_cls(model, settings)
            try:
                return [(rule, r) for r in rule.check()], skipped
            except RecursionError:
                owner = _owner(model, last[0]) if last[0] is not None else None
                if owner is None or owner in skipped:
                    break
                skipped.append(owner)
                blocked.clear()
    finally:
        del model.nodes
    return [], [None]


def _owner(model: FileModel, node):
    """The innermost function around `node` (its def), else its top-level statement."""
    parents = model.parents
    top = None
    cur = node
    while cur is not None and cur is not model.module:
        if isinstance(cur, cst.FunctionDef):
            return cur
        top = cur
        cur = parents.get(cur)
    return top


def _too_deep(path: str, model: FileModel, code: str, skipped: list) -> list[Diagnostic]:
    if skipped == [None]:
        return [Diagnostic(path, f"code nested too deeply for {code} to analyse; its findings in this "
                                 f"file are skipped")]
    out = []
    for node in skipped:
        first, last = _lines_of(model, node)
        what = f"function `{node.name.value}`" if isinstance(node, cst.FunctionDef) else "statement"
        span = f" (lines {first}-{last})" if first is not None else ""
        out.append(Diagnostic(path, f"{what}{span} is nested too deeply for {code} to analyse; its "
                                    f"findings there are skipped", line=first, col=1 if first else None))
    return out


def _lines_of(model: FileModel, node) -> tuple[Optional[int], Optional[int]]:
    """First and last line of a def or top-level statement, from Python's tree when libcst's
    positions are too deep to compute."""
    pos = model.positions.get(node)
    if pos is not None:
        return pos.start.line, pos.end.line
    import ast

    tree = model.ast_tree
    if tree is None:
        return None, None
    if isinstance(node, cst.FunctionDef):
        defs = sorted(((n.lineno, n.col_offset, n) for n in ast.walk(tree)
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), key=lambda t: t[:2])
        ours = [n for n in model.nodes(cst.FunctionDef)]
        if len(defs) == len(ours) and node in ours:
            found = defs[ours.index(node)][2]
            return found.lineno, found.end_lineno
        return None, None
    body = model.module.body
    flat = [s for s in body for _ in range(len(s.body) if isinstance(s, cst.SimpleStatementLine) else 1)]
    if len(flat) == len(tree.body) and node in flat:
        found = tree.body[flat.index(node)]
        return found.lineno, found.end_lineno
    return None, None


def _without_noqa(findings: list[Finding], text: str) -> list[Finding]:
    lines = source_lines(text)
    return [f for f in findings
            if not noqa.suppressed(f.code, noqa.noqa_codes(lines[f.line - 1] if 0 < f.line <= len(lines) else ""))]


# Unused and unknown `# noqa: JAX...` codes (opt-in, like ruff's RUF100).
UNUSED_NOQA = "JAX100"


def _fix_dict(rule: Rule, report: Report) -> Optional[dict]:
    try:
        fix = rule.fix(report)
    except Exception:  # a bug in a fix must not stop the lint; the finding stays, unfixed
        return None
    return fix.to_dict() if fix is not None else None


def _to_findings(path: str, text: str, model: FileModel,
                 reports: list[tuple[Rule, Report]], apply_noqa: bool = True) -> list[Finding]:
    positions = model.positions
    lines = source_lines(text)
    seen = set()
    out = []
    for rule, r in reports:
        rule_cls = type(rule)
        pos = positions.get(r.node)
        if pos is None:
            continue
        line, col = pos.start.line, pos.start.column + 1
        end_line, end_col = pos.end.line, pos.end.column + 1
        key = (rule_cls.code, line, col)
        if key in seen:
            continue
        seen.add(key)
        src_line = lines[line - 1] if 0 < line <= len(lines) else ""
        if apply_noqa and noqa.suppressed(rule_cls.code, noqa.noqa_codes(src_line)):
            continue
        func_line = None
        func_name = None
        if r.function is not None:
            fpos = positions.get(r.function.node)
            func_line = fpos.start.line if fpos else None
            func_name = r.function.qualname
        out.append(Finding(
            path=path, line=line, col=col, end_line=end_line, end_col=end_col,
            code=rule_cls.code, message=r.message, name=rule_cls.name,
            severity=rule_cls.severity, function=func_name, function_line=func_line,
            confirm=dict(r.confirm), fix=_fix_dict(rule, r)))
    out.sort(key=lambda f: f.sort_key)
    return out


_EXPECT = re.compile(r"#.*\bexpect:\s*(?P<codes>JAX\d{3}(?:\s*,\s*JAX\d{3})*)")


def expected_findings(text: str) -> set[tuple[int, str]]:
    """Inline expectations in fixtures and rule pages: `# expect: JAX201, JAX202`."""
    out = set()
    for i, line in enumerate(source_lines(text), 1):
        m = _EXPECT.search(line)
        if m:
            for code in re.findall(r"JAX\d{3}", m.group("codes")):
                out.add((i, code))
    return out


def lint_string(text: str, path: str = "<string>", settings: Optional[Settings] = None,
                select: Union[None, Iterable[str]] = None) -> list[Finding]:
    """Convenience for tests and the API: findings for a piece of code."""
    settings = settings or Settings()
    codes = None
    if select is not None:
        select = tuple(select)
        codes = frozenset(c for c in all_rules() if any(c.startswith(s) for s in select))
    result = lint_text(text, path, settings, codes)
    if result.diagnostics:
        raise ValueError("; ".join(d.message for d in result.diagnostics))
    return result.findings
