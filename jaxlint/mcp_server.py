"""`jaxlint mcp`: jaxlint's tools for coding agents, over the Model Context Protocol (stdio).

An adapter on `jaxlint.service`, as the command line is: the same configuration
(the nearest pyproject.toml), findings, fixes, rule pages and confirm mode. Each tool
answers with JSON (also as structured content); bad input is a tool error with a
one-line reason, or an E902 / E999 entry among the findings, and the server goes on.

Linting and fixing run in forked children (a file that crashes the parser costs that
file); confirm runs in a child process that the time limit, a cancelled request or
the server's own exit stops, JAX worker included. Built on the official MCP SDK 2.x.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import traceback
from dataclasses import replace
from typing import Annotated, Any, Optional, Union

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, PlainValidator, ValidationError, WithJsonSchema

from jaxlint import __version__, service
from jaxlint.config import ConfigError, Settings, override, validate_codes
from jaxlint.finding import Diagnostic, Finding

INSTRUCTIONS = """\
jaxlint finds JAX pitfalls (a Python `if` on a traced value, PRNG key reuse, in-place
updates of arrays, recompilation in loops, removed APIs, ...) without running anything.
lint a file, a folder or a text; explain_rule CODE says why a finding matters and what to
write instead; fix applies the fixes that keep the code's meaning (unsafe=True: the others
too) and returns a diff, writing only with write=True. confirm RUNS the code under JAX to
check each finding: use it only on code you trust, as you would run its tests."""

# The longest confirm a caller may ask for, in seconds.
MAX_CONFIRM_SECONDS = 3600.0
# Seconds between progress notifications while confirm runs.
PROGRESS_EVERY = 2.0


def _text_or_none(value: Any) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    raise ValueError("must be a string")


# A string or null, declared as `str` to the SDK: it parses an argument that is declared
# anything else and reads as a JSON list or object, so source text such as `[1, 2]`
# would arrive as a list.
_Text = Annotated[str, PlainValidator(_text_or_none),
                  WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "null"}]})]
SourceArg = Annotated[_Text, Field(
    description="The code to check, as text (give `source` or `path`, not both).")]
PathArg = Annotated[_Text, Field(
    description="A file, notebook (.ipynb) or folder to check (folders: every .py, .pyi and "
                ".ipynb file in them, excludes applied). Relative paths are from the server's "
                "working folder.")]


# ---------------------------------------------------------------------- answers
def finding_dict(f: Finding) -> dict[str, Any]:
    d = {"path": f.path, "code": f.code, "name": f.name, "message": f.message,
         "line": f.line, "column": f.col, "end_line": f.end_line, "end_column": f.end_col,
         "severity": f.severity, "fix": f.fix}
    if f.cell:
        d["cell"] = f.cell
    return d


_PROBLEM_NAMES = {"E999": "syntax-error", "E902": "io-error"}


def problem_dict(d: Diagnostic) -> dict[str, Any]:
    """A file that could not be checked (E999 syntax error, E902 unreadable), as a finding."""
    line, col = d.line or 1, d.col or 1
    return {"path": d.path, "code": d.code, "name": _PROBLEM_NAMES.get(d.code, "internal-error"),
            "message": d.message, "line": line, "column": col, "end_line": line, "end_column": col,
            "severity": "error", "fix": None}


def _all(findings: list[Finding], diagnostics: list[Diagnostic]) -> list[dict[str, Any]]:
    return [problem_dict(d) for d in diagnostics] + [finding_dict(f) for f in findings]


# ---------------------------------------------------------------------- input
def _one_input(source: Optional[str], path: Optional[str]) -> None:
    if (source is None) == (path is None):
        raise ToolError("give either `source` (the code as text) or `path` (a file or folder), not "
                        + ("both" if source is not None else "neither"))


def _existing(path: str) -> str:
    path = os.path.expanduser(path)
    if not os.path.lexists(path):
        raise ToolError(f"no such file or directory: {path}")
    return path


def _settings(start: str, select: Optional[list[str]] = None) -> Settings:
    try:
        settings = service.settings_for(start)
        if select:
            validate_codes(select, "select")
            settings = override(settings, select=tuple(select))
    except ConfigError as exc:
        raise ToolError(str(exc)) from None
    return settings


def _selectors(select: Union[None, str, list[str]]) -> Optional[list[str]]:
    if isinstance(select, str):
        select = [select]
    if select is None:
        return None
    # "ALL" means every rule, as in [tool.jaxlint] select.
    return ["JAX" if s.strip().upper() == "ALL" else s.strip()
            for item in select for s in item.split(",") if s.strip()] or None


async def _lint(source: Optional[str], path: Optional[str], filename: str,
                select: Optional[list[str]]) -> service.LintRun:
    _one_input(source, path)
    if path is not None:
        path = _existing(path)
        settings = _settings(path, select)
        return await anyio.to_thread.run_sync(lambda: service.lint_paths([path], settings))
    settings = _settings(filename, select)
    run = service.LintRun(n_files=1)

    def lint_text() -> None:
        r = service.lint_source(filename, source, settings, sources=run.sources)
        run.findings.extend(r.findings)
        run.diagnostics.extend(r.diagnostics)

    await anyio.to_thread.run_sync(lint_text)
    return run


# ---------------------------------------------------------------------- tools
def list_rules() -> dict[str, Any]:
    """Every jaxlint rule: `code` (JAX201), `name`, one-line `summary`, `severity` ("error",
    "warning" or "info"), `default` (true: on unless deselected; false: opt-in, enabled with
    lint's `select`), and `fix`: the kinds of fix the rule offers ("safe": applied by fix;
    "unsafe": applied by fix with unsafe=True; "display-only": a suggestion, never applied;
    [] for none). Call explain_rule for a rule's full page."""
    return {"rules": service.rule_summaries()}


def explain_rule(code: Annotated[str, Field(description="A rule code, such as JAX201.")]) -> str:
    """The page of one rule, in Markdown, the same text as `jaxlint rule CODE`: what it does,
    why it is bad (the runtime consequence), an example, what to write instead, whether
    and how the fix changes behaviour, references. Read it before changing flagged code."""
    page = service.rule_page(code.strip())
    if page is None:
        raise ToolError(f"unknown rule `{code}` (list_rules gives every code)")
    return page


async def lint(
    source: SourceArg = None,
    path: PathArg = None,
    filename: Annotated[str, Field(
        description="With `source`: the file name it stands for. Its suffix decides Python or "
                    "notebook (.ipynb, `source` is then the notebook's JSON); its folder decides "
                    "which pyproject.toml applies.")] = "snippet.py",
    select: Annotated[Union[None, list[str], str], Field(
        description="Rule codes or prefixes to check, replacing the default set (JAX2, JAX501, "
                    "or JAX for every rule, opt-in ones included). Default: the configuration's "
                    "selection.")] = None,
) -> dict[str, Any]:
    """Check Python code, a notebook or a whole folder for JAX pitfalls without running it.
    Returns `findings`: each with `path`, `code`, `name`, `message` (what goes wrong at run
    time and what to write instead), `line`, `column`, `end_line`, `end_column` (1-based;
    `cell` too, for a notebook), `severity` ("info" never fails a check) and `fix` (ruff's
    fix object: `applicability` "safe" / "unsafe" / "display-only", `message`, `edits`; or
    null). A file that could not be checked is an entry with code E999 (syntax error) or
    E902 (unreadable, binary, parser crash). Configuration ([tool.jaxlint] in the nearest
    pyproject.toml) and `# noqa` comments apply, as for `jaxlint check`."""
    run = await _lint(source, path, filename, _selectors(select))
    return {"findings": _all(run.findings, run.diagnostics), "files": run.n_files}


async def fix(
    source: SourceArg = None,
    path: PathArg = None,
    unsafe: Annotated[bool, Field(
        description="Also apply unsafe fixes, which may change behaviour (each rule's page says "
                    "how, under 'Fix safety').")] = False,
    write: Annotated[bool, Field(
        description="Write the fixed files (atomically, as `jaxlint check --fix`). Default: "
                    "write nothing, only return the result. Only with `path`.")] = False,
) -> dict[str, Any]:
    """Apply jaxlint's automatic fixes, re-checking after each round until none applies, as
    `jaxlint check --fix` does; a fix that would break the code is never applied. Returns
    `source` (the fixed text, for a text or a single file; null for a folder), `diff` (a
    unified diff of every change), `fixed` (what was fixed: path, code, count), `remaining`
    (the findings left, shaped as lint's) and `written` (the files written: none unless
    write=True)."""
    _one_input(source, path)
    if write and path is None:
        raise ToolError("write=True needs a `path`: a `source` text has no file to write")
    if path is not None:
        path = _existing(path)
        settings = _settings(path)
        run = await anyio.to_thread.run_sync(lambda: service.fix_paths([path], settings, unsafe, write))
    else:
        settings = _settings("snippet.py")
        run = service.FixRun()
        r = await anyio.to_thread.run_sync(lambda: service.fix_source("snippet.py", source, settings, unsafe))
        (run.diagnostics if isinstance(r, Diagnostic) else run.results).append(r)
    remaining, problems = run.remaining()
    single = run.results[0] if len(run.results) == 1 and not run.diagnostics and (
        path is None or not os.path.isdir(path)) else None
    return {
        "source": single.new if single is not None else None,
        "diff": "".join(r.diff() for r in run.results if r.changed),
        "fixed": [{"path": r.path, "code": code, "count": n}
                  for r in run.results for code, n in sorted(r.applied.items())],
        "remaining": _all(remaining, problems),
        "written": [r.path for r in run.results if write and r.changed],
    }


async def confirm(
    ctx: Context,
    source: SourceArg = None,
    path: PathArg = None,
    timeout_s: Annotated[float, Field(
        gt=0, le=MAX_CONFIRM_SECONDS,
        description="Seconds allowed for the whole confirmation, JAX's start included. "
                    "Findings without a verdict when it runs out are 'could not run'.")] = 120.0,
) -> dict[str, Any]:
    """WARNING: this RUNS the code. Lint it, then check each finding under real JAX (CPU or
    the GPU JAX finds) in the sandboxed worker of `jaxlint check --confirm`: the file is
    imported, so its module-level code runs (`if __name__ == "__main__":` blocks do not), and
    each flagged function is traced or run with example arguments. Use it only on code you
    would run yourself. Returns `findings` (shaped as lint's) each with `verdict`
    ("confirmed": the pitfall happened; "not reproduced"; "could not run"), `summary` and
    `evidence` (the error or measurement seen), and `device`. Sends progress notifications
    while it runs; cancelling the request stops it."""
    if not math.isfinite(timeout_s):
        raise ToolError("timeout_s must be a finite number of seconds")
    run = await _lint(source, path, "snippet.py", None)
    problems = [{**problem_dict(d), "verdict": "could not run", "summary": d.message, "evidence": ""}
                for d in run.diagnostics]
    if not run.findings:
        return {"findings": problems, "device": None}
    texts = {"snippet.py": source} if source is not None else {}
    n_files = len({f.path for f in run.findings})
    what = (f"{len(run.findings)} finding{'s' if len(run.findings) != 1 else ''} in {n_files} "
            f"file{'s' if n_files != 1 else ''}")
    confirmed, device = await _confirm_in_child(ctx, run.findings, texts, timeout_s, what)
    answers = []
    for f in confirmed:
        verdict = f.verdict or {"verdict": "could not run", "summary": "no verdict"}
        answers.append({**finding_dict(f), "verdict": verdict.get("verdict"),
                        "summary": verdict.get("summary") or "", "evidence": verdict.get("evidence") or ""})
    return {"findings": problems + answers, "device": device or None}


async def _confirm_in_child(ctx: Context, findings: list[Finding], texts: dict[str, str],
                            timeout: float, what: str) -> tuple[list[Finding], str]:
    """service.confirm in a child process, with progress, stopped at `timeout` seconds."""
    start = anyio.current_time()
    await ctx.report_progress(0, timeout, f"confirming {what} under JAX (this runs the code)")
    proc = await anyio.open_process(service.CONFIRM_CHILD, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=None)
    out = bytearray()
    try:
        await proc.stdin.send(service.confirm_request(findings, timeout, texts))
        await proc.stdin.aclose()
        finished = anyio.Event()

        async def read() -> None:
            async for chunk in proc.stdout:
                out.extend(chunk)
            await proc.wait()
            finished.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(read)
            while not finished.is_set():
                left = timeout - (anyio.current_time() - start)
                if left <= 0:
                    break
                with anyio.move_on_after(min(PROGRESS_EVERY, left)):
                    await finished.wait()
                if not finished.is_set():
                    elapsed = anyio.current_time() - start
                    await ctx.report_progress(min(elapsed, timeout), timeout,
                                              f"confirming {what}: {elapsed:.0f} s of {timeout:.0f} s")
            tg.cancel_scope.cancel()
    finally:
        await _stop(proc)
    if not finished.is_set():
        summary = f"confirm did not finish within timeout_s={timeout:g} s"
        return [replace(f, verdict={"verdict": "could not run", "summary": summary}) for f in findings], ""
    await ctx.report_progress(timeout, timeout, "done")
    try:
        return service.confirm_reply(bytes(out), proc.returncode)
    except service.ConfirmUnavailable as exc:
        raise ToolError(str(exc)) from None
    except RuntimeError as exc:
        raise ToolError(str(exc)) from None


async def _stop(proc) -> None:
    """SIGTERM first, so confirm mode's cleanup kills its JAX worker; then SIGKILL."""
    with anyio.CancelScope(shield=True):
        if proc.returncode is None:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
            with anyio.move_on_after(5):
                await proc.wait()
            if proc.returncode is None:
                try:
                    proc.kill()
                except ProcessLookupError:
                    pass
                await proc.wait()
        await proc.aclose()


# ---------------------------------------------------------------------- server
class _Server(MCPServer):
    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            # pydantic's report takes several lines: one line, as every other answer.
            reasons = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in cause.errors())
            raise ToolError(f"Error executing tool {name}: invalid arguments: {reasons}") from cause


def create_server() -> MCPServer:
    server = _Server("jaxlint", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)
    server.add_tool(list_rules, annotations=read_only)
    server.add_tool(explain_rule, annotations=read_only)
    server.add_tool(lint, annotations=read_only)
    server.add_tool(fix, annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                                     idempotent_hint=True, open_world_hint=False))
    server.add_tool(confirm, annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                                         idempotent_hint=False, open_world_hint=True))
    return server


def serve() -> None:
    """Serve on standard input and output until the input closes."""
    code = 0
    try:
        create_server().run("stdio")
    except KeyboardInterrupt:
        code = 130
    except Exception:  # noqa: BLE001 - a bug: say where, and still exit without waiting
        traceback.print_exc()
        code = 1
    # Not a normal exit: a worker thread may still be blocked reading standard input, and
    # Python would wait for it. Every child dies with this process (see _stop and
    # processes.become_disposable).
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)
