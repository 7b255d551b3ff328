"""The command line: `jaxlint [PATHS]`, `jaxlint rule CODE`, `jaxlint rules`.

Exit codes follow ruff and flake8: 0 clean, 1 findings, 2 usage or config error.
"""

from __future__ import annotations

import collections
import sys
from typing import Optional

import click

from jaxlint import __version__
from jaxlint.config import ConfigError, Settings, load_settings, override
from jaxlint.finding import Diagnostic, Finding

_FORMATS = ("full", "concise", "json", "json-lines", "github", "sarif")


def _split(values) -> Optional[tuple[str, ...]]:
    if not values:
        return None
    out = []
    for v in values:
        out.extend(s.strip() for s in v.split(",") if s.strip())
    return tuple(out)


class _DefaultGroup(click.Group):
    """`jaxlint PATHS` means `jaxlint check PATHS`."""

    def parse_args(self, ctx, args):
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="jaxlint")
def main() -> None:
    """jaxlint: find JAX pitfalls before anything runs.

    \b
      jaxlint [OPTIONS] [PATHS]...   lint files and directories (same as `jaxlint check`)
      jaxlint rule JAX201            print a rule's page
      jaxlint rules                  list every rule

    Run `jaxlint check --help` for the options.
    """


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (comma-separated), replacing the default set.")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--extend-select", multiple=True, help="Rule codes or prefixes to enable on top of the selection.")
@click.option("--exclude", multiple=True, help="Glob patterns to exclude, replacing the defaults.")
@click.option("--extend-exclude", multiple=True, help="Glob patterns to exclude, on top of the defaults.")
@click.option("--force-exclude", is_flag=True, default=None,
              help="Apply excludes even to files named on the command line (for pre-commit).")
@click.option("--output-format", type=click.Choice(_FORMATS), default=None,
              help="full (default), concise (path:line:col: CODE message), json, json-lines, github, sarif.")
@click.option("--statistics", is_flag=True, help="Print the number of findings per code.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only: no summary line.")
@click.option("--stdin-filename", default=None, help="The file name to report when reading from `-`.")
@click.option("--config", "config_path", type=click.Path(), default=None,
              help="A pyproject.toml (or TOML file with the [tool.jaxlint] keys) to use instead of searching.")
@click.option("--jobs", "-j", type=int, default=None, help="Worker processes (default: up to the CPU count).")
@click.option("--no-cache", is_flag=True, help="Do not read or write .jaxlint_cache/.")
@click.option("--confirm", is_flag=True,
              help="Confirm each finding by tracing it under JAX (needs `pip install 'jaxlint[confirm]'`). "
                   "This IMPORTS your modules, so their module-level code runs "
                   "(`if __name__ == \"__main__\"` blocks do not).")
@click.option("--confirmed-only", is_flag=True, help="With --confirm: show only confirmed findings.")
@click.option("--device", type=click.Choice(["auto", "cpu"]), default="auto",
              help="With --confirm: `auto` uses what JAX finds (GPU if present), `cpu` forces the CPU.")
@click.option("--confirm-timeout", type=float, default=60.0, show_default=True,
              help="With --confirm: seconds allowed per file.")
def check(paths, select, ignore, extend_select, exclude, extend_exclude, force_exclude,
          output_format, statistics, exit_zero, quiet, stdin_filename, config_path, jobs,
          no_cache, confirm, confirmed_only, device, confirm_timeout) -> None:
    """Lint PATHS (files or directories; `-` reads standard input)."""
    paths = list(paths) or ["."]
    try:
        start = stdin_filename if "-" in paths and stdin_filename else paths[0]
        if start == "-":
            start = "."
        settings = load_settings(start, config_path)
        settings = override(
            settings, select=_split(select), ignore=_split(ignore), extend_select=_split(extend_select),
            exclude=_split(exclude), extend_exclude=_split(extend_exclude),
            force_exclude=force_exclude)
        fmt = output_format or settings.output_format or "full"
        if fmt not in _FORMATS:
            raise ConfigError(f"unknown output-format `{fmt}` (known: {', '.join(_FORMATS)})")
    except ConfigError as exc:
        click.echo(f"jaxlint: error: {exc}", err=True)
        sys.exit(2)
    if confirmed_only and not confirm:
        click.echo("jaxlint: error: --confirmed-only needs --confirm", err=True)
        sys.exit(2)

    findings, diagnostics, sources = _lint(paths, settings, stdin_filename, jobs, no_cache)

    device_name = None
    nothing_ran = False
    if confirm and findings:
        try:
            from jaxlint.confirm import ConfirmUnavailable, confirm_findings
        except ImportError:  # pragma: no cover - confirm mode not installed with this build
            click.echo("jaxlint: error: confirm mode is not available in this build", err=True)
            sys.exit(2)
        from jaxlint.confirm import WARNING

        click.echo(WARNING, err=True)
        stdin_texts = {n: t for n, t in sources.items() if n == (stdin_filename or "-")} \
            if "-" in paths else {}
        try:
            findings, device_name = confirm_findings(findings, device=device, timeout=confirm_timeout,
                                                     texts=stdin_texts)
        except ConfirmUnavailable as exc:
            click.echo(f"jaxlint: error: {exc}", err=True)
            sys.exit(2)
        tally = collections.Counter(f.verdict.get("verdict") for f in findings if f.verdict)
        if confirmed_only:
            findings = [f for f in findings if f.verdict and f.verdict.get("verdict") == "confirmed"]
            # Never hide what could not run: say how much, and fail when nothing ran at all.
            if tally["could not run"]:
                click.echo(f"jaxlint: {tally['could not run']} finding(s) could not run under JAX "
                           f"(not shown; run without --confirmed-only to see why)", err=True)
            if not tally["confirmed"] and not tally["not reproduced"] and tally["could not run"]:
                nothing_ran = True

    from jaxlint.formats import FORMATS, FormatContext

    ctx = FormatContext(sources=sources, root=settings.root, device=device_name)
    for d in diagnostics:
        where = d.path + (f":{d.line}" if d.line else "") + (f":{d.col}" if d.line and d.col else "")
        click.echo(f"{where}: {d.code} {d.message}", err=True)
    out = FORMATS[fmt](findings, diagnostics, ctx)
    if out:
        click.echo(out, nl=False)
    if statistics:
        counts = collections.Counter(f.code for f in findings)
        names = {f.code: f.name for f in findings}
        for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            click.echo(f"{n:>5}\t{code}\t{names[code]}")
    if not quiet and fmt in ("full", "concise"):
        if device_name:
            click.echo(f"Confirmed on device: {device_name}", err=True)
        n = len(findings)
        if n:
            click.echo(f"Found {n} finding{'s' if n != 1 else ''}.", err=True)
        elif nothing_ran:
            click.echo("No finding could be confirmed: none could run under JAX.", err=True)
        elif not diagnostics:
            click.echo("All checks passed!", err=True)
    # A file that could not be linted fails the run too, as E999 / E902 do in flake8; so does
    # a confirm run where nothing could run (its silence would not mean "no problem").
    sys.exit(0 if exit_zero or not (findings or diagnostics or nothing_ran) else 1)


def _lint(paths, settings: Settings, stdin_filename, jobs, no_cache):
    from jaxlint.discovery import discover
    from jaxlint.runner import lint_paths
    from jaxlint.source import read_source
    findings: list[Finding] = []
    diagnostics: list[Diagnostic] = []
    sources: dict[str, str] = {}
    files = []
    if "-" in paths:
        name = stdin_filename or "-"
        data = sys.stdin.buffer.read()
        if not (settings.force_exclude and stdin_filename and settings.is_excluded(stdin_filename)):
            text = read_source(name, data)
            if isinstance(text, Diagnostic):
                diagnostics.append(text)
            else:
                from jaxlint.linter import lint_text

                sources[name] = text
                r = lint_text(text, name, settings)
                findings.extend(r.findings)
                diagnostics.extend(r.diagnostics)
        paths = [p for p in paths if p != "-"]
    for item in discover(paths, settings):
        if isinstance(item, Diagnostic):
            diagnostics.append(item)
        else:
            files.append(item)
    cache = None
    if not no_cache:
        try:
            from jaxlint.cache import Cache
            cache = Cache.for_settings(settings)
        except ImportError:
            cache = None
    results = lint_paths(files, settings, jobs, lint_one=cache.get if cache else None)
    for r in results:
        findings.extend(r.findings)
        diagnostics.extend(r.diagnostics)
        if cache is not None:
            cache.put(r)
    if cache is not None:
        cache.save()
    findings.sort(key=lambda f: f.sort_key)
    for f in findings:
        if f.path not in sources and not f.path.endswith(".ipynb"):
            try:
                with open(f.path, encoding="utf-8", errors="replace") as fh:
                    sources[f.path] = fh.read()
            except OSError:
                pass
    return findings, diagnostics, sources


@main.command("rule")
@click.argument("code")
def rule_cmd(code: str) -> None:
    """Print the page of rule CODE (e.g. JAX201)."""
    from jaxlint.pages import page_text
    from jaxlint.rules import get_rule

    # JAX000 has a page but is a diagnostic, not a rule.
    text = page_text(code) if get_rule(code) or code.upper() == "JAX000" else None
    if text is None:
        click.echo(f"jaxlint: error: unknown rule `{code}` (see `jaxlint rules`)", err=True)
        sys.exit(2)
    click.echo(text, nl=not text.endswith("\n"))


@main.command("rules")
@click.option("--all", "show_all", is_flag=True, help="Include opt-in rules (shown by default too, marked).")
def rules_cmd(show_all: bool) -> None:
    """List every rule: code, name, and summary."""
    from jaxlint.rules import all_rules

    for code, rule in all_rules().items():
        flag = "" if rule.default else "  (opt-in)"
        click.echo(f"{code}  {rule.name:<32} {rule.summary}{flag}")


if __name__ == "__main__":  # pragma: no cover
    main()
