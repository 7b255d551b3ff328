"""`jaxlint check --fix / --unsafe-fixes / --diff / --show-fixes / --add-noqa`.

The fixing itself lives in `jaxlint.fixes`; this module walks the files, writes
or prints, and reports like ruff does.
"""

from __future__ import annotations

import collections
import sys
from typing import Optional

import click

from jaxlint import service
from jaxlint.config import Settings
from jaxlint.finding import Diagnostic, Finding


def _where(f) -> str:
    return f"{f.path}:cell {f.cell}" if getattr(f, "cell", None) else f.path


def run_fix(paths: list[str], settings: Settings, stdin_filename: Optional[str], fmt: str, *,
            unsafe: bool, diff: bool, show_fixes: bool, quiet: bool, exit_zero: bool,
            statistics: bool) -> int:
    from jaxlint.formats import FORMATS, FormatContext

    stdin = (stdin_filename or "-", sys.stdin.buffer.read()) if "-" in paths else None
    run = service.fix_paths([p for p in paths if p != "-"], settings, unsafe, write=not diff, stdin=stdin)
    results, diagnostics = run.results, list(run.diagnostics)
    stdin_result = run.stdin
    if not results and not diagnostics:
        click.echo(f"jaxlint: warning: no Python files or notebooks found in {' '.join(paths)}", err=True)

    applied = run.applied
    if diff:
        for r in results:
            if r.changed:
                click.echo(r.diff(), nl=False)
        if not quiet:
            click.echo(f"Would fix {applied} finding{'s' if applied != 1 else ''}." if applied
                       else "No fixes available.", err=True)
        return 1 if applied and not exit_zero else 0

    remaining, diagnostics = run.remaining()
    if stdin_result is not None:
        # ruff prints the fixed source of standard input.
        click.echo(stdin_result.new, nl=False)
    else:
        for d in diagnostics:
            where = d.path + (f":{d.line}" if d.line else "") + (f":{d.col}" if d.line and d.col else "")
            click.echo(f"{where}: {d.code} {d.message}", err=True)
        sources = {r.path: r.new for r in results if not r.cells and not r.path.endswith(".ipynb")}
        if statistics:
            for n, code, fixable, name in service.statistics(remaining):
                click.echo(f"{n:>5}\t{code}\t{'[*]' if fixable else '   '} {name}")
        else:
            out = FORMATS[fmt](remaining, diagnostics, FormatContext(sources=sources, root=settings.root))
            if out:
                click.echo(out, nl=False)
    if show_fixes and applied:
        click.echo(f"Fixed {applied} finding{'s' if applied != 1 else ''}:", err=True)
        names = _names()
        for r in results:
            if r.applied:
                click.echo(f"- {r.path}:", err=True)
                for code, n in sorted(r.applied.items()):
                    click.echo(f"    {n} × {code} ({names.get(code, '')})", err=True)
    if not quiet and fmt in ("full", "concise"):
        n = len(remaining)
        if applied or n:
            click.echo(f"Found {applied + n} finding{'s' if applied + n != 1 else ''} "
                       f"({applied} fixed, {n} remaining).", err=True)
            summary = fixable_summary(remaining, unsafe)
            if summary:
                click.echo(summary, err=True)
        elif not diagnostics:
            click.echo("All checks passed!", err=True)
    return service.exit_code(remaining, diagnostics, exit_zero)


def _names() -> dict[str, str]:
    from jaxlint.rules import all_rules

    return {code: rule.name for code, rule in all_rules().items()}


def _applicability(f: Finding) -> Optional[str]:
    if not f.fix or not f.fix.get("edits"):
        return None
    return f.fix.get("applicability")


def fixable_summary(findings: list[Finding], unsafe: bool) -> str:
    counts = collections.Counter(_applicability(f) for f in findings)
    safe, hidden = counts["safe"], counts["unsafe"]
    if unsafe:
        safe, hidden = safe + hidden, 0
    parts = []
    if safe:
        parts.append(f"[*] {safe} fixable with the `--fix` option"
                     + (" and `--unsafe-fixes`" if unsafe and counts["unsafe"] else ""))
    if hidden:
        parts.append(f"{hidden} more with `--fix --unsafe-fixes` (they may change behaviour)")
    return "; ".join(parts) + "." if parts else ""


def print_available_fixes(findings: list[Finding]) -> None:
    """--show-fixes without --fix: each finding's fix, its safety and its message."""
    for f in findings:
        if f.fix:
            click.echo(f"{_where(f)}:{f.line}:{f.col}: {f.code} [{f.fix.get('applicability')}] "
                       f"{f.fix.get('message')}")


def run_add_noqa(findings: list[Finding], diagnostics: list[Diagnostic]) -> int:
    """Write `# noqa: CODE` on every line with a finding (cells of notebooks included)."""
    from jaxlint.fixes.apply import _encode, read_for_rewrite
    from jaxlint.fixes.noqa import add_noqa
    from jaxlint.source import write_atomic

    by_file: dict[str, dict] = collections.defaultdict(lambda: collections.defaultdict(set))
    for f in findings:
        if f.code == "JAX100":
            continue
        by_file[f.path][(f.cell, f.line)].add(f.code)
    added = 0
    files = 0
    for path, lines in by_file.items():
        if path == "-" or not path:
            continue
        try:
            if path.endswith(".ipynb"):
                n = _add_noqa_notebook(path, lines)
            else:
                read = read_for_rewrite(path)
                if isinstance(read, Diagnostic):
                    raise OSError(read.message)
                text, encoding, bom = read
                new, n = add_noqa(text, {line: codes for (_, line), codes in lines.items()},
                                  parses=_script_parses(text))
                if n:
                    write_atomic(path, _encode(new, encoding, bom))
        except (OSError, ValueError, SyntaxError) as exc:
            click.echo(f"{path}: E902 cannot add noqa directives: {exc}", err=True)
            continue
        added += n
        files += bool(n)
    click.echo(f"Added {added} noqa directive{'s' if added != 1 else ''} in {files} "
               f"file{'s' if files != 1 else ''}.", err=True)
    return 0


def _add_noqa_notebook(path: str, lines: dict) -> int:
    import json

    from jaxlint.fixes.apply import _cell_text, _indent_of, _notebook_bytes, _set_cell_text
    from jaxlint.fixes.noqa import add_noqa
    from jaxlint.source import write_atomic

    with open(path, "rb") as fh:
        raw = fh.read().decode("utf-8-sig")
    nb = json.loads(raw)
    by_cell: dict[int, dict[int, set]] = collections.defaultdict(dict)
    for (cell, line), codes in lines.items():
        if cell:
            by_cell[cell][line] = codes
    total = 0
    for cell, codes_by_line in by_cell.items():
        c = nb["cells"][cell - 1]
        new, n = add_noqa(_cell_text(c), codes_by_line, parses=_cell_parses)
        if n:
            _set_cell_text(c, new)
            total += n
    if total:
        write_atomic(path, _notebook_bytes(nb, _indent_of(raw), raw.isascii()))
    return total


def _script_parses(text: str):
    """The check a `# noqa` comment must pass in `text`: Python parses the file; in a cell
    script, every cell parses as before and its magic lines are as they were."""
    from jaxlint import notebook
    from jaxlint.fixes.noqa import _python_parses

    shape = notebook.script_shape(text)
    return _python_parses if shape is None else (lambda new: notebook.script_shape(new) == shape)


def _cell_parses(text: str) -> bool:
    """A notebook cell, IPython syntax replaced as the linter does, parses as Python."""
    from jaxlint import notebook

    converted = notebook._cell_python(text)
    return converted is None or notebook._parses(converted[0]) is None
