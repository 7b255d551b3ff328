"""The command line: `jaxlint [PATHS]`, `jaxlint rule CODE`, `jaxlint rules`.

Exit codes follow ruff and flake8: 0 clean, 1 findings, 2 usage or config error.
Information findings (JAX906, a deprecation) never fail the run.
"""

from __future__ import annotations

import collections
import errno
import math
import os
import sys
from typing import Optional

import click

from jaxlint import __version__, processes, service
from jaxlint.config import ConfigError, load_settings, override

_FORMATS = ("full", "concise", "json", "json-lines", "github", "sarif")


def _split(values) -> Optional[tuple[str, ...]]:
    if not values:
        return None
    out = []
    for v in values:
        out.extend(s.strip() for s in v.split(",") if s.strip())
    return tuple(out)


class _PositiveSeconds(click.ParamType):
    """A finite number of seconds above zero: `nan` would disable a deadline, `inf` never end."""

    name = "seconds"

    def convert(self, value, param, ctx):
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or seconds <= 0:
            self.fail(f"{value!r} must be a finite number of seconds above 0", param, ctx)
        return seconds


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
    Commands:
      jaxlint [OPTIONS] [PATHS]...   lint files, directories and notebooks
                                     (same as `jaxlint check`; `-` reads stdin)
      jaxlint rule JAX201            print a rule's page: what it does, why it is
                                     bad, an example, the fix and its safety
      jaxlint rules                  list every rule
      jaxlint server                 a language server for editors (LSP over
                                     stdio; needs `pip install 'jaxlint[server]'`)
      jaxlint mcp                    an MCP server for coding agents (over stdio;
                                     needs `pip install 'jaxlint[mcp]'`)

    \b
    Common options of `jaxlint check` (all of them: `jaxlint check --help`):
      --select/--ignore CODES        choose rules by code or prefix (JAX2, JAX201)
      --output-format FORMAT         full (default), concise, json, json-lines,
                                     github, sarif
      --fix / --unsafe-fixes         apply safe fixes / unsafe ones too
      --diff                         show the fixes as a diff, write nothing
      --target-jax-version X.Y.Z     the JAX release your code must run on
      --add-noqa, --baseline FILE    adopt jaxlint in an existing codebase
      --confirm                      check each finding by tracing it under JAX

    \b
    Exit codes:
      0  no findings (or --exit-zero); deprecations (JAX906) never fail a run
      1  findings, or a file that could not be linted (E999, E902)
      2  usage, configuration or internal error
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
@click.option("--statistics", is_flag=True, help="Print only the number of findings per code (a table).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only: no summary line.")
@click.option("--stdin-filename", default=None, help="The file name to report when reading from `-`.")
@click.option("--config", "config_path", type=click.Path(), default=None,
              help="A pyproject.toml (or TOML file with the [tool.jaxlint] keys) to use instead of searching.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=None,
              help="Worker processes (default, or 0: up to the CPU count).")
@click.option("--no-cache", is_flag=True, help="Do not read or write .jaxlint_cache/.")
@click.option("--confirm", is_flag=True,
              help="Confirm each finding by tracing it under JAX (needs `pip install 'jaxlint[confirm]'`). "
                   "This IMPORTS your modules, so their module-level code runs "
                   "(`if __name__ == \"__main__\"` blocks do not).")
@click.option("--confirmed-only", is_flag=True, help="With --confirm: show only confirmed findings.")
@click.option("--device", type=click.Choice(["auto", "cpu"]), default="auto",
              help="With --confirm: `auto` uses what JAX finds (GPU if present), `cpu` forces the CPU.")
@click.option("--confirm-timeout", type=_PositiveSeconds(), default=60.0, show_default=True,
              help="With --confirm: seconds allowed per file.")
@click.option("--fix", is_flag=True, help="Apply safe fixes (the meaning of the code is unchanged); "
                                          "report what is left.")
@click.option("--unsafe-fixes", is_flag=True,
              help="With --fix or --diff: apply unsafe fixes too (behaviour may change; each rule's "
                   "page says how, under 'Fix safety').")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff and write nothing "
                                           "(exit 1 when there is something to fix).")
@click.option("--show-fixes", is_flag=True, help="List the fixes applied (with --fix) or available.")
@click.option("--target-jax-version", default=None,
              help="The JAX release the code must run on (default: the installed jax, else the newest "
                   "known): removed-API rules fire for APIs removed by then, JAX906 for deprecated ones.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` to every line with a finding, and exit.")
@click.option("--baseline", "baseline_file", type=click.Path(), default=None,
              help="Hide the findings recorded in this baseline file (see --write-baseline).")
@click.option("--write-baseline", "write_baseline_file", type=click.Path(), default=None,
              help="Record every current finding in this file, and exit 0.")
@click.option("--memory-limit", default=None, metavar="SIZE",
              help="Memory the analysis of one file may take, e.g. 2GiB (the default) or 512MiB; "
                   "`none`: no limit. A file past it gets E902 and the run goes on.")
def check(paths, select, ignore, extend_select, exclude, extend_exclude, force_exclude,
          output_format, statistics, exit_zero, quiet, stdin_filename, config_path, jobs,
          no_cache, confirm, confirmed_only, device, confirm_timeout, fix, unsafe_fixes, diff,
          show_fixes, target_jax_version, add_noqa, baseline_file, write_baseline_file,
          memory_limit=None) -> None:
    """Lint PATHS (files, directories or notebooks; `-` reads standard input)."""
    try:
        with processes.handling_signals():
            code = _check(paths, select, ignore, extend_select, exclude, extend_exclude, force_exclude,
                          output_format, statistics, exit_zero, quiet, stdin_filename, config_path, jobs,
                          no_cache, confirm, confirmed_only, device, confirm_timeout, fix, unsafe_fixes,
                          diff, show_fixes, target_jax_version, add_noqa, baseline_file,
                          write_baseline_file, memory_limit=memory_limit)
    except processes.Interrupted as exc:
        code = exc.exit_code
    except KeyboardInterrupt:  # before the handler was installed
        processes.run_cleanups()
        code = 130
    except _OutputError as exc:
        code = exc.exit_code
    sys.exit(code)


class _OutputError(Exception):
    """Standard output or error cannot be written (a full disk, a closed pipe)."""

    def __init__(self, exit_code: int):
        super().__init__(exit_code)
        self.exit_code = exit_code


def _write(text: str, err: bool = False) -> None:
    """Write to standard output (or error); a failure to write ends the run with one line.

    A path holding bytes that are not UTF-8 keeps them as surrogates (PEP 383);
    surrogateescape writes the file's own name back instead of raising.
    """
    stream = sys.stderr if err else sys.stdout
    try:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:  # a replaced stream (click's test runner) takes text
            stream.write(text)
        else:
            encoding = stream.encoding or "utf-8"
            try:
                data = text.encode(encoding, errors="surrogateescape")
            except UnicodeEncodeError:  # a character the terminal's encoding lacks
                data = text.encode(encoding, errors="backslashreplace")
            stream.flush()
            buffer.write(data)
        stream.flush()
    except OSError as exc:
        _output_failed(exc, err)


def _output_failed(exc: OSError, err: bool) -> None:
    if isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE:
        code = 1  # the reader went away (`| head`): nobody to tell
    else:
        code = 2
        if not err:
            try:
                os.write(2, f"jaxlint: error: cannot write the output: {exc.strerror or exc}\n".encode())
            except OSError:
                pass
    # Python flushes the stream again at exit: send what is left to /dev/null, so
    # that flush does not print a second error (as a traceback).
    stream = sys.stderr if err else sys.stdout
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    raise _OutputError(code)


def _echo(text: str = "", err: bool = False, nl: bool = True) -> None:
    _write(text + ("\n" if nl else ""), err=err)


def _check(paths, select, ignore, extend_select, exclude, extend_exclude, force_exclude,
           output_format, statistics, exit_zero, quiet, stdin_filename, config_path, jobs,
           no_cache, confirm, confirmed_only, device, confirm_timeout, fix, unsafe_fixes, diff,
           show_fixes, target_jax_version, add_noqa, baseline_file, write_baseline_file,
           memory_limit=None) -> int:
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
        if memory_limit is not None:
            from dataclasses import replace

            from jaxlint.config import parse_memory

            settings = replace(settings, memory_limit=parse_memory(memory_limit, "--memory-limit"))
        fmt = output_format or settings.output_format or "full"
        if fmt not in _FORMATS:
            raise ConfigError(f"unknown output-format `{fmt}` (known: {', '.join(_FORMATS)})")
        settings = service.with_target(settings, target_jax_version)
        baseline = None
        if baseline_file:
            from jaxlint.baseline import load_baseline

            baseline = load_baseline(baseline_file)
    except ConfigError as exc:
        _echo(f"jaxlint: error: {exc}", err=True)
        return 2
    if confirmed_only and not confirm:
        _echo("jaxlint: error: --confirmed-only needs --confirm", err=True)
        return 2
    if (fix or diff) and (confirm or add_noqa or write_baseline_file):
        _echo("jaxlint: error: --fix / --diff cannot be combined with --confirm, --add-noqa "
              "or --write-baseline", err=True)
        return 2

    if fix or diff:
        from jaxlint.fix_command import run_fix

        return run_fix(paths, settings, stdin_filename, fmt, unsafe=unsafe_fixes, diff=diff,
                       show_fixes=show_fixes, quiet=quiet, exit_zero=exit_zero, statistics=statistics)

    stdin = None
    if "-" in paths:
        data = sys.stdin.buffer.read()
        if not (settings.force_exclude and stdin_filename and settings.is_excluded(stdin_filename)):
            stdin = (stdin_filename or "-", data)
    run = service.lint_paths([p for p in paths if p != "-"], settings, jobs, use_cache=not no_cache,
                             stdin=stdin)
    findings, diagnostics, sources, n_files = run.findings, run.diagnostics, run.sources, run.n_files
    if not n_files and not diagnostics and "-" not in paths:
        _echo(f"jaxlint: warning: no Python files or notebooks found in {' '.join(paths)}", err=True)

    if add_noqa:
        from jaxlint.fix_command import run_add_noqa

        return run_add_noqa(findings, diagnostics)
    if write_baseline_file:
        from jaxlint.baseline import write_baseline

        n = write_baseline(write_baseline_file, findings, sources, settings.root)
        _echo(f"Wrote {n} finding{'s' if n != 1 else ''} to {write_baseline_file}.", err=True)
        return 0
    hidden = 0
    if baseline is not None:
        from jaxlint.baseline import filter_baseline

        findings, hidden = filter_baseline(findings, baseline, sources, settings.root)

    device_name = None
    nothing_ran = False
    if confirm and findings:
        _echo(service.confirm_warning(), err=True)
        stdin_texts = {n: t for n, t in sources.items() if n == (stdin_filename or "-")} \
            if "-" in paths else {}
        try:
            findings, device_name = service.confirm(findings, device=device, timeout=confirm_timeout,
                                                    texts=stdin_texts)
        except service.ConfirmUnavailable as exc:
            _echo(f"jaxlint: error: {exc}", err=True)
            return 2
        tally = collections.Counter(f.verdict.get("verdict") for f in findings if f.verdict)
        if confirmed_only:
            findings = [f for f in findings if f.verdict and f.verdict.get("verdict") == "confirmed"]
            # Never hide what could not run: say how much, and fail when nothing ran at all.
            if tally["could not run"]:
                _echo(f"jaxlint: {tally['could not run']} finding(s) could not run under JAX "
                           f"(not shown; run without --confirmed-only to see why)", err=True)
            if not tally["confirmed"] and not tally["not reproduced"] and tally["could not run"]:
                nothing_ran = True

    from jaxlint.formats import FORMATS, FormatContext, display_path

    ctx = FormatContext(sources=sources, root=settings.root, device=device_name)
    for d in diagnostics:
        where = display_path(d) + (f":{d.line}" if d.line else "") + (f":{d.col}" if d.line and d.col else "")
        _echo(f"{where}: {d.code} {d.message}", err=True)
    if statistics:  # the table only, as ruff prints it
        print_statistics(findings)
    else:
        out = FORMATS[fmt](findings, diagnostics, ctx)
        if out:
            _echo(out, nl=False)
        if show_fixes:
            from jaxlint.fix_command import print_available_fixes

            print_available_fixes(findings)
    if not quiet and fmt in ("full", "concise"):
        if device_name:
            _echo(f"Confirmed on device: {device_name}", err=True)
        n = len(findings)
        if n:
            _echo(f"Found {n} finding{'s' if n != 1 else ''}.", err=True)
            from jaxlint.fix_command import fixable_summary

            summary = fixable_summary(findings, unsafe_fixes)
            if summary:
                _echo(summary, err=True)
        elif nothing_ran:
            _echo("No finding could be confirmed: none could run under JAX.", err=True)
        elif not diagnostics:
            _echo("All checks passed!", err=True)
        if hidden:
            _echo(f"{hidden} finding{'s' if hidden != 1 else ''} hidden by the baseline.", err=True)
    return service.exit_code(findings, diagnostics, exit_zero, nothing_ran)


def print_statistics(findings) -> None:
    for n, code, fixable, name in service.statistics(findings):
        _echo(f"{n:>5}\t{code}\t{'[*]' if fixable else '   '} {name}")


@main.command("rule")
@click.argument("code")
def rule_cmd(code: str) -> None:
    """Print the page of rule CODE (e.g. JAX201)."""
    text = service.rule_page(code)
    if text is None:
        click.echo(f"jaxlint: error: unknown rule `{code}` (see `jaxlint rules`)", err=True)
        sys.exit(2)
    try:
        _echo(text, nl=not text.endswith("\n"))
    except _OutputError as exc:
        sys.exit(exc.exit_code)


@main.command("rules")
@click.option("--all", "show_all", is_flag=True, help="Include opt-in rules (shown by default too, marked).")
def rules_cmd(show_all: bool) -> None:
    """List every rule: code, name, and summary."""
    lines = [f"{r['code']}  {r['name']:<32} {r['summary']}{'' if r['default'] else '  (opt-in)'}"
             for r in service.rule_summaries()]
    try:
        _echo("\n".join(lines))
    except _OutputError as exc:
        sys.exit(exc.exit_code)


@main.command("server")
@click.option("--timeout", type=_PositiveSeconds(), default=20.0, show_default=True,
              help="Seconds one file's analysis may take; a file that takes longer (or crashes the "
                   "parser) gets one diagnostic saying so, and the server goes on.")
@click.option("--debounce-ms", type=click.IntRange(min=0), default=25, show_default=True,
              help="Quiet time after an edit before the buffer is linted: a burst of edits is linted once.")
def server_cmd(timeout: float, debounce_ms: int) -> None:
    """Run the language server: LSP over standard input and output, for any editor.

    \b
    Diagnostics as you type (from the editor's buffer, with the same
    pyproject.toml configuration and `# noqa` as `jaxlint check`), notebooks
    (LSP 3.17 notebook sync), quick fixes (the edits of `--fix`), "Disable CODE
    for this line", `source.fixAll.jaxlint` for fix-on-save, rule pages on
    hover, and the `jaxlint.confirm` command, which confirms one finding under
    JAX. Confirm is the only thing that runs your code, and only when asked.

    \b
    The editor starts it as `jaxlint server`; the README shows set-ups for
    VS Code, Neovim, Helix and Emacs. Needs `pip install 'jaxlint[server]'`.
    """
    from jaxlint.server import missing_dependency

    hint = missing_dependency()
    if hint is not None:
        click.echo(f"jaxlint: error: {hint}", err=True)
        sys.exit(2)
    from jaxlint.server.app import serve

    serve(timeout=timeout, debounce=debounce_ms / 1000)


@main.command("mcp")
def mcp_cmd() -> None:
    """Run the MCP server: the Model Context Protocol over standard input and output,
    for coding agents.

    \b
    Tools: list_rules, explain_rule, lint (a file, a folder or a text), fix
    (a diff; writes only when asked) and confirm, which IMPORTS AND RUNS the
    linted code under JAX, as `--confirm` does. Configuration comes from the
    nearest pyproject.toml, as for `jaxlint check`. The agent starts it as
    `jaxlint mcp`; the README shows the `mcpServers` entry. Needs
    `pip install 'jaxlint[mcp]'`.
    """
    try:
        from jaxlint.mcp_server import serve
    except ImportError as exc:
        click.echo(f"jaxlint: error: jaxlint mcp needs the MCP SDK 2.x: pip install 'jaxlint[mcp]' "
                   f"({exc})", err=True)
        sys.exit(2)
    serve()


if __name__ == "__main__":  # pragma: no cover
    main()
