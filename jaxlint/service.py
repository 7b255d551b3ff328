"""What every front end asks of jaxlint: lint, fix, confirm and explain, for paths or a text.

The command line (`cli`, `fix_command`), the language server (`server/`), the flake8
plugin and the MCP server (`mcp_server`) are adapters on this module: they turn their
own input into these calls and the answers into their own output. None of them
imports another (tests/test_layers.py checks it), and this module imports none of them.

Bad input never raises out of here as a crash: a file that cannot be linted is a
`Diagnostic` (E902, E999) in the answer, and a file that crashes or hangs the parser
costs only that file (it is linted in a forked child).
"""

from __future__ import annotations

import collections
import os
import pickle
import re
import signal
import sys
from dataclasses import dataclass, field, replace
from typing import Optional, Union

from jaxlint import processes
from jaxlint.config import ConfigError, Settings, load_settings
from jaxlint.finding import Diagnostic, FileResult, Finding

__all__ = [
    "CONFIRM_CHILD", "ConfigError", "ConfirmUnavailable", "FixRun", "LintRun", "confirm", "confirm_child",
    "confirm_reply", "confirm_request", "confirm_warning", "exit_code",
    "fix_kinds", "fix_paths", "fix_source", "lint_paths", "lint_source", "rule_page", "rule_summaries",
    "settings_for", "statistics", "with_target",
]


# ---------------------------------------------------------------------- configuration
def with_target(settings: Settings, value: Optional[str] = None) -> Settings:
    """The target JAX version resolved now (`value`, else the config's, else the installed
    jax), so a cache key holds the real version."""
    from jaxlint.api_changes import default_target
    from jaxlint.config import parse_target

    target = parse_target(value, "--target-jax-version") if value else settings.target_jax_version
    return replace(settings, target_jax_version=target or default_target())


def settings_for(start: str, config_path: Optional[str] = None) -> Settings:
    """The settings `jaxlint check START` uses: the nearest pyproject.toml's (or
    `config_path`'s), target version resolved. Raises ConfigError."""
    return with_target(load_settings(start, config_path))


# ---------------------------------------------------------------------- lint
@dataclass
class LintRun:
    findings: list[Finding] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # The text of each linted Python file with findings (for snippets, baselines, confirm).
    sources: dict[str, str] = field(default_factory=dict)
    n_files: int = 0


def lint_source(name: str, data: Union[bytes, str], settings: Settings,
                codes: Optional[frozenset[str]] = None, apply_noqa: bool = True,
                sources: Optional[dict[str, str]] = None) -> FileResult:
    """Lint `data` as the content of the file `name` (a notebook when it ends in .ipynb),
    in a forked child: a parser crash or hang costs only this input, as a diagnostic.

    `codes` and `apply_noqa=False` are the flake8 plugin's (flake8 selects and applies
    noqa itself). `sources` receives the decoded text."""
    from jaxlint.linter import lint_file, lint_python, mentions_jax
    from jaxlint.source import read_source

    if name.endswith(".ipynb"):
        if isinstance(data, str):
            data = data.encode("utf-8")
        return _isolated(name, lint_file, name, settings, data, memory=settings.memory_limit)
    text = read_source(name, data) if isinstance(data, bytes) else data
    if isinstance(text, Diagnostic):
        return FileResult(name, diagnostics=[text])
    if sources is not None:
        sources[name] = text
    if not mentions_jax(text, {n.split(".")[0] for n, _ in settings.extend_transforms}):
        return FileResult(name)  # nothing to parse: no child needed
    return _isolated(name, lint_python, text, name, settings, codes, apply_noqa, memory=settings.memory_limit)


def _warm() -> None:
    """Import the parser and every rule here, once, not in each forked child (a tenth of a
    second a call, for a server or the flake8 plugin)."""
    import libcst  # noqa: F401

    from jaxlint.rules import all_rules

    all_rules()


def _isolated(name: str, fn, *args, memory: Optional[int] = None) -> FileResult:
    from jaxlint.runner import FILE_TIMEOUT

    _warm()
    try:
        return processes.isolated(fn, *args, timeout=FILE_TIMEOUT, memory=memory)
    except processes.IsolationFailed as exc:
        if exc.raised:
            return FileResult(name, diagnostics=[Diagnostic(
                name, f"internal error: {exc}; please report it", code="JAX000")])
        return FileResult(name, diagnostics=[Diagnostic(name, str(exc))])


def lint_paths(paths: list[str], settings: Settings, jobs: Optional[int] = None,
               use_cache: bool = True, stdin: Optional[tuple[str, bytes]] = None) -> LintRun:
    """Lint files, directories and notebooks (and `stdin`: a name and its bytes), as
    `jaxlint check` does: excludes, the cache, one forked worker per file at a time."""
    from jaxlint.discovery import discover
    from jaxlint.runner import lint_paths as run
    from jaxlint.source import read_source

    out = LintRun()
    if stdin is not None:
        r = lint_source(stdin[0], stdin[1], settings, sources=out.sources)
        out.findings.extend(r.findings)
        out.diagnostics.extend(r.diagnostics)
    files = []
    for item in discover(paths, settings):
        if isinstance(item, Diagnostic):
            out.diagnostics.append(item)
        else:
            files.append(item)
    cache = None
    if use_cache:
        try:
            from jaxlint.cache import Cache
            cache = Cache.for_settings(settings)
        except ImportError:  # pragma: no cover
            cache = None
    for r in run(files, settings, jobs, lint_one=cache.get if cache else None):
        out.findings.extend(r.findings)
        out.diagnostics.extend(r.diagnostics)
        if cache is not None:
            cache.put(r)
    if cache is not None:
        cache.save()
    out.n_files = len(files) + len(out.sources)  # so far `sources` holds standard input's text
    out.findings.sort(key=lambda f: f.sort_key)
    for f in out.findings:
        if f.path not in out.sources and not f.path.endswith(".ipynb"):
            text = read_source(f.path)
            if isinstance(text, str):
                out.sources[f.path] = text
    return out


# ---------------------------------------------------------------------- fix
@dataclass
class FixRun:
    results: list = field(default_factory=list)  # jaxlint.fixes.FixResult, one per file or text
    diagnostics: list[Diagnostic] = field(default_factory=list)  # files that could not be fixed
    stdin: Optional[object] = None  # the FixResult of standard input, among `results`

    @property
    def applied(self) -> int:
        return sum(sum(r.applied.values()) for r in self.results)

    def remaining(self) -> tuple[list[Finding], list[Diagnostic]]:
        """What is left after the fixes: findings, and files that could not be linted."""
        findings: list[Finding] = []
        diagnostics = list(self.diagnostics)
        for r in self.results:
            if r.result:
                findings.extend(r.result.findings)
                diagnostics.extend(r.result.diagnostics)
        findings.sort(key=lambda f: f.sort_key)
        return findings, diagnostics


def fix_source(name: str, data: Union[bytes, str], settings: Settings, unsafe: bool = False):
    """Every applicable fix applied to a Python text (a FixResult), or why not (a Diagnostic).
    Fixing lints again and again: it runs in a forked child, as a lint does."""
    from jaxlint.fixes import fix_text
    from jaxlint.source import read_source

    text = read_source(name, data) if isinstance(data, bytes) else data
    if isinstance(text, Diagnostic):
        return text
    return _fix_isolated(name, fix_text, text, name, settings, unsafe)


def fix_paths(paths: list[str], settings: Settings, unsafe: bool = False, write: bool = True,
              stdin: Optional[tuple[str, bytes]] = None) -> FixRun:
    """`jaxlint check --fix` (or `--diff`, `write=False`) on files, directories and notebooks:
    a file is written, atomically, only when it changed and `write`."""
    from jaxlint.discovery import discover
    from jaxlint.fixes import fix_file

    out = FixRun()
    if stdin is not None:
        r = fix_source(stdin[0], stdin[1], settings, unsafe)
        if isinstance(r, Diagnostic):
            out.diagnostics.append(r)
        else:
            out.stdin = r
            out.results.append(r)
    for item in discover(paths, settings):
        if isinstance(item, Diagnostic):
            out.diagnostics.append(item)
            continue
        r = _fix_isolated(item, fix_file, item, settings, unsafe, write)
        (out.diagnostics if isinstance(r, Diagnostic) else out.results).append(r)
    return out


def _fix_isolated(name: str, fn, *args):
    from jaxlint.runner import FILE_TIMEOUT

    _warm()
    try:
        # Several lints in a row: a generous limit, still finite.
        return processes.isolated(fn, *args, timeout=4 * FILE_TIMEOUT)
    except processes.IsolationFailed as exc:
        if exc.raised:
            return Diagnostic(name, f"internal error while fixing: {exc}; please report it", code="JAX000")
        return Diagnostic(name, str(exc))


# ---------------------------------------------------------------------- confirm
class ConfirmUnavailable(Exception):
    """Confirm mode cannot run here (jax is not installed); the message says what to do."""


def confirm(findings: list[Finding], *, device: str = "auto", timeout: float = 60.0,
            texts: Optional[dict[str, str]] = None) -> tuple[list[Finding], str]:
    """The findings with confirm mode's verdicts, and the device it ran on: the code and
    sandbox of `jaxlint check --confirm` (it imports the files and runs their code).
    `texts`: the code to run for names not on disk (standard input, a snippet)."""
    try:
        from jaxlint import confirm as confirm_mode
    except ImportError as exc:  # pragma: no cover - a build without confirm mode
        raise ConfirmUnavailable(f"confirm mode is not available in this build ({exc})") from None
    try:
        return confirm_mode.confirm_findings(findings, device=device, timeout=timeout, texts=texts)
    except confirm_mode.ConfirmUnavailable as exc:
        raise ConfirmUnavailable(str(exc)) from None


def confirm_warning() -> str:
    """What to tell a user before confirm runs their code."""
    from jaxlint.confirm import WARNING

    return WARNING


# ---------------------------------------------------------------------- results
def exit_code(findings, diagnostics, exit_zero: bool = False, nothing_ran: bool = False) -> int:
    """1 for findings or files that could not be linted (E999 / E902, as in flake8), or a
    confirm run where nothing could run (its silence would not mean "no problem");
    information findings (deprecations) never fail the run."""
    failing = [f for f in findings if f.severity != "info"]
    return 0 if exit_zero or not (failing or diagnostics or nothing_ran) else 1


def statistics(findings: list[Finding]) -> list[tuple[int, str, bool, str]]:
    """(count, code, any safely fixable, name) per code, most frequent first (ruff's table)."""
    counts = collections.Counter(f.code for f in findings)
    names = {f.code: f.name for f in findings}
    fixable = collections.Counter(f.code for f in findings
                                  if f.fix and f.fix.get("applicability") == "safe" and f.fix.get("edits"))
    return [(n, code, bool(fixable[code]), names[code])
            for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


# ---------------------------------------------------------------------- rules
def rule_page(code: str) -> Optional[str]:
    """The page `jaxlint rule CODE` prints, or None for an unknown code."""
    from jaxlint.pages import page_text
    from jaxlint.rules import get_rule

    # JAX000 has a page but is a diagnostic, not a rule.
    return page_text(code) if get_rule(code) or code.upper() == "JAX000" else None


_FIX_KINDS = ("safe", "unsafe", "display-only")
_FIX_WORD = re.compile(r"(?<![\w-])(unsafe|display-only|safe)\b", re.I)


def fix_kinds(page: Optional[str]) -> list[str]:
    """The kinds of fix a rule's page says it offers (its "Fix safety" section), in
    ruff's terms: [] when there is no automatic fix."""
    from jaxlint.pages import section

    text = section(page or "", "Fix safety")
    if not text or text.startswith("There is no automatic fix"):
        return []
    said = {w.lower() for w in _FIX_WORD.findall(text)}
    return [k for k in _FIX_KINDS if k in said]


def rule_summaries() -> list[dict]:
    """Every rule: code, name, summary, severity, default or opt-in, and its fixes."""
    from jaxlint.pages import page_text
    from jaxlint.rules import all_rules

    out = []
    for code, rule in all_rules().items():
        kinds = fix_kinds(page_text(code))
        out.append({"code": code, "name": rule.name, "summary": rule.summary, "severity": rule.severity,
                    "default": bool(rule.default), "fix": kinds})
    return out


# ---------------------------------------------------------------------- confirm in a child
# A server confirms in a child process it can stop: at its time limit, when the request is
# cancelled, and when the server itself dies. The child's SIGTERM runs confirm mode's own
# cleanup, which kills its JAX worker.
_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIRM_CHILD = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); "
                 "from jaxlint.service import confirm_child; sys.exit(confirm_child())", _HERE]


def confirm_request(findings: list[Finding], timeout: float, texts: Optional[dict[str, str]] = None) -> bytes:
    """What to write to a CONFIRM_CHILD's standard input."""
    return pickle.dumps((findings, timeout, texts or {}))


def confirm_reply(data: bytes, returncode: Optional[int]) -> tuple[list[Finding], str]:
    """A CONFIRM_CHILD's answer: the findings with verdicts and the device. Raises
    ConfirmUnavailable when jax is missing, RuntimeError when the child died first."""
    try:
        kind, value = pickle.loads(data)
    except Exception:  # noqa: BLE001 - a child that died mid-write, or before
        raise RuntimeError(f"confirm exited early (status {returncode})") from None
    if kind == "unavailable":
        raise ConfirmUnavailable(value)
    return value


def confirm_child() -> int:
    """The child: read a confirm_request, run confirm mode, write the reply."""
    if processes._LIBC is not None:  # Linux: SIGTERM (so the cleanup runs) when the parent dies
        processes._LIBC.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what the confirmed code prints must not reach the reply
    findings, timeout, texts = pickle.load(sys.stdin.buffer)
    try:
        with processes.handling_signals():
            try:
                outcome = ("ok", confirm(findings, timeout=timeout, texts=texts))
            except ConfirmUnavailable as exc:
                outcome = ("unavailable", str(exc))
    except processes.Interrupted as exc:
        return exc.exit_code
    pickle.dump(outcome, replies)
    replies.flush()
    return 0
