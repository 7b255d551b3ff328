"""The language server: LSP features over the CLI's own linter, fixes, pages and confirm.

Documents in, diagnostics out:

- A text document or a notebook is a *target*. Opening, changing or saving one
  schedules a lint of the editor's buffer (never the file on disk) after a short
  quiet time (`debounce`), so a burst of edits is linted once. A lint whose
  target changed while it ran is stale: it is dropped, and the latest text is
  linted instead.
- The lint runs in the worker process (`worker.Worker`): a parser crash or hang
  costs that target's diagnostics, which become one line saying why.
- A notebook's code cells are linted together, in order, as `jaxlint check`
  lints an .ipynb file; each diagnostic is published on its own cell.

What each published URI's diagnostics came from is kept (`Published`): code
actions, hovers and confirm read it, so they always match what the editor shows.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from jaxlint import __version__
from jaxlint.finding import Diagnostic, FileResult, Finding
from jaxlint.fixes import SAFE, UNSAFE, Fix
from jaxlint.server import convert
from jaxlint.server.worker import Worker, WorkerFailed

logger = logging.getLogger("jaxlint.server")

CONFIRM_COMMAND = "jaxlint.confirm"
FIX_ALL = "source.fixAll.jaxlint"
# Seconds of quiet after an edit before the buffer is linted.
DEFAULT_DEBOUNCE = 0.025
# Seconds one lint may take before the worker is replaced and the file skipped.
DEFAULT_TIMEOUT = 20.0
# Seconds confirm may spend on one file, as `jaxlint check --confirm-timeout`'s default.
CONFIRM_TIMEOUT = 60.0


@dataclass
class Published:
    """The diagnostics of one URI (a file, or a notebook cell) and what they came from."""

    target: str  # the text document's or the notebook's URI
    text: str  # the text the lint saw (a cell's own text, for a cell)
    lines: convert.Lines
    findings: list[Finding]
    problems: list[types.Diagnostic]  # about the file: a syntax error, a parser crash
    diagnostics: list[types.Diagnostic]  # what was published: the problems, then the findings
    path: str
    cell: Optional[int] = None  # 1-based, counting every cell, for a notebook cell


@dataclass
class Target:
    generation: int = 0
    task: Optional[asyncio.Task] = None
    uris: set[str] = field(default_factory=set)  # where diagnostics were last published
    # Confirm verdicts, by (code, the flagged line's text, function): kept across edits
    # elsewhere in the file, dropped when the line changes.
    verdicts: dict[tuple, dict] = field(default_factory=dict)


class _Ignored:
    """A message already answered with an error: nothing more to do."""

    jsonrpc = None


class JaxlintProtocol(LanguageServerProtocol):
    """pygls' protocol, plus JSON-RPC errors for malformed messages (pygls logs and drops them)."""

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:  # a request: it gets its error response
                self._send_data({"jsonrpc": "2.0", "id": data["id"],
                                 "error": {"code": exc.code, "message": f"{exc.message}: bad "
                                           f"parameters for {data.get('method')!r}"}})
            return _Ignored()

    def handle_message(self, message):
        if isinstance(message, _Ignored):
            return
        if not hasattr(message, "jsonrpc"):  # valid JSON, but not a JSON-RPC message
            self.send_error(None, JsonRpcInvalidRequest.CODE, "Invalid Request: not a JSON-RPC 2.0 message")
            return
        super().handle_message(message)

    def send_error(self, msg_id, code: int, message: str) -> None:
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})

    def _handle_cancel_notification(self, msg_id) -> None:
        super()._handle_cancel_notification(msg_id)
        task = self._server.confirming.get(msg_id)
        if task is not None:
            task.cancel()


class JaxlintServer(LanguageServer):
    def __init__(self, timeout: float = DEFAULT_TIMEOUT, debounce: float = DEFAULT_DEBOUNCE,
                 confirm_timeout: float = CONFIRM_TIMEOUT):
        super().__init__(
            "jaxlint", __version__, protocol_cls=JaxlintProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")])],
                save=True))
        self.worker = Worker(timeout)
        self.debounce = debounce
        self.confirm_timeout = confirm_timeout
        self.targets: dict[str, Target] = {}
        self.published: dict[str, Published] = {}
        self.confirming: dict[Any, asyncio.Task] = {}  # request id -> the confirm task
        self.shutdown_requested = False

    def report_server_error(self, error: Exception, source) -> None:
        # The message loop calls this for a body that is not JSON: answer as JSON-RPC says.
        if isinstance(error, (ValueError, UnicodeDecodeError)) and not isinstance(error, JsonRpcException):
            self.protocol.send_error(None, JsonRpcParseError.CODE, f"Parse error: {error}")
            return
        logger.error("%s", error)

    # --------------------------------------------------------------- scheduling
    def schedule(self, target_uri: str, delay: Optional[float] = None) -> None:
        target = self.targets.setdefault(target_uri, Target())
        target.generation += 1
        if target.task is None or target.task.done():
            target.task = asyncio.ensure_future(
                self._lint_when_quiet(target_uri, target, self.debounce if delay is None else delay))

    async def _lint_when_quiet(self, uri: str, target: Target, delay: float) -> None:
        while True:
            generation = target.generation
            if delay > 0:
                await asyncio.sleep(delay)
                if target.generation != generation:
                    continue  # edited again meanwhile: wait for quiet
            job = self._job(uri)
            if job is None:
                return  # closed
            result = await asyncio.get_running_loop().run_in_executor(None, self._run_job, job)
            if target.generation != generation or self.targets.get(uri) is not target:
                delay = 0  # stale: lint the latest text instead
                if self.targets.get(uri) is not target:
                    return
                continue
            self._publish(uri, target, job, result)
            return

    def _job(self, uri: str) -> Optional[dict]:
        """What to lint for a target, as it is in the editor now; None once it is closed."""
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is not None:
            cells = []
            for cell in notebook.cells:
                doc = self.workspace.get_text_document(cell.document)
                kind = "code" if cell.kind == types.NotebookCellKind.Code else "markdown"
                cells.append((kind, doc.source, cell.document))
            return {"kind": "notebook", "uri": uri, "path": _path(uri, self.workspace.root_path),
                    "cells": cells}
        if uri not in self.workspace.text_documents:
            return None
        doc = self.workspace.get_text_document(uri)
        return {"kind": "text", "uri": uri, "path": _path(uri, self.workspace.root_path),
                "text": doc.source, "version": doc.version}

    def _run_job(self, job: dict) -> FileResult:
        try:
            if job["kind"] == "notebook":
                return self.worker.call("lint_notebook", job["path"], [(k, t) for k, t, _ in job["cells"]])
            return self.worker.call("lint", job["uri"], job["path"], job["text"])
        except WorkerFailed as exc:
            message = f"internal error: {exc}; please report it" if exc.raised else str(exc)
            return FileResult(job["path"], diagnostics=[Diagnostic(
                job["path"], message, code="JAX000" if exc.raised else "E902")])

    # --------------------------------------------------------------- publishing
    def _publish(self, uri: str, target: Target, job: dict, result: FileResult) -> None:
        codec = self.workspace.position_codec
        if job["kind"] == "text":
            pieces = {uri: (job["text"], None, result.findings, result.diagnostics)}
        else:
            code_cells = [(n, text, cell_uri) for n, (kind, text, cell_uri) in enumerate(job["cells"], 1)
                          if kind == "code"]
            pieces = {cell_uri: (text, n, [], []) for n, text, cell_uri in code_cells}
            by_number = {n: cell_uri for n, _, cell_uri in code_cells}
            for f in result.findings:
                if f.cell in by_number:
                    pieces[by_number[f.cell]][2].append(f)
            for d in result.diagnostics:
                n = _cell_of(d)
                cell_uri = by_number.get(n) if n is not None else (code_cells[0][2] if code_cells else None)
                if cell_uri is not None:
                    pieces[cell_uri][3].append(_in_cell(d) if n is not None else d)
        for stale in target.uris - set(pieces):
            self.published.pop(stale, None)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=stale, diagnostics=[]))
        target.uris = set(pieces)
        for piece_uri, (text, cell, findings, problems) in pieces.items():
            lines = convert.Lines(text, codec)
            verdicts = [target.verdicts.get(_verdict_key(f, lines)) for f in findings]
            problems = [convert.file_diagnostic(d, lines) for d in problems]
            diagnostics = problems + [convert.finding_diagnostic(f, lines, v) for f, v in zip(findings, verdicts)]
            self.published[piece_uri] = Published(uri, text, lines, findings, problems, diagnostics,
                                                  job["path"], cell)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=piece_uri, diagnostics=diagnostics,
                version=job.get("version") if job["kind"] == "text" else None))

    def republish(self, uri: str) -> None:
        """Publish a target's diagnostics again (a verdict arrived), without linting."""
        target = self.targets.get(uri)
        if target is None:
            return
        for piece_uri in target.uris:
            pub = self.published.get(piece_uri)
            if pub is None:
                continue
            pub.diagnostics = pub.problems + [
                convert.finding_diagnostic(f, pub.lines, target.verdicts.get(_verdict_key(f, pub.lines)))
                for f in pub.findings]
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=piece_uri, diagnostics=pub.diagnostics))

    def close(self, uri: str) -> None:
        target = self.targets.pop(uri, None)
        if target is None:
            return
        target.generation += 1
        if target.task is not None:
            target.task.cancel()
        for piece_uri in target.uris:
            self.published.pop(piece_uri, None)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=piece_uri, diagnostics=[]))
        asyncio.get_running_loop().run_in_executor(None, self._forget, uri)

    def _forget(self, uri: str) -> None:
        try:
            self.worker.call("forget", uri)
        except WorkerFailed:
            pass

    # --------------------------------------------------------------- lookups
    def findings_at(self, uri: str, rng: types.Range) -> list[tuple[Finding, types.Diagnostic]]:
        pub = self.published.get(uri)
        if pub is None:
            return []
        out = []
        for f in pub.findings:
            frange = pub.lines.range(f.line, f.col, f.end_line, f.end_col)
            if convert.overlaps(frange, rng):
                diag = next((d for d in pub.diagnostics if d.code == f.code and d.range == frange), None)
                out.append((f, diag))
        return out


def _path(uri: str, root: Optional[str]) -> str:
    """A file URI's path; for an unsaved buffer (`untitled:`), a name in the workspace folder."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if path:
        return path
    name = re.sub(r"[^\w.-]", "_", uri.rsplit("/", 1)[-1].rsplit(":", 1)[-1]) or "untitled"
    return os.path.join(root or os.getcwd(), name)


_CELL = re.compile(r"^cell (?P<cell>\d+), line (?P<line>\d+): ")


def _cell_of(d: Diagnostic) -> Optional[int]:
    m = _CELL.match(d.message)
    return int(m.group("cell")) if m else None


def _in_cell(d: Diagnostic) -> Diagnostic:
    """A notebook diagnostic ("cell 3, line 2: SyntaxError ...") placed on its line in the cell."""
    m = _CELL.match(d.message)
    return Diagnostic(d.path, d.message, line=int(m.group("line")), col=None, code=d.code)


def _verdict_key(f: Finding, lines: convert.Lines) -> tuple:
    text = lines.lines[f.line - 1].strip() if 0 < f.line <= len(lines.lines) else ""
    return (f.code, text, f.function)


# ======================================================================== features
def create_server(**kwargs) -> JaxlintServer:
    server = JaxlintServer(**kwargs)

    @server.feature(types.INITIALIZED)
    def initialized(ls: JaxlintServer, params: types.InitializedParams) -> None:
        # Start the warm worker now, so the first file opened is linted at full speed.
        asyncio.get_running_loop().run_in_executor(None, ls.worker.start)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: JaxlintServer, params: Any) -> None:
        ls.shutdown_requested = True
        for task in list(ls.confirming.values()):
            task.cancel()
        ls.worker.stop()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: JaxlintServer, params: types.DidOpenTextDocumentParams) -> None:
        if ls.workspace.get_notebook_document(cell_uri=params.text_document.uri) is None:
            ls.schedule(params.text_document.uri, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JaxlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: JaxlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JaxlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: JaxlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, delay=0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: JaxlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: JaxlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, delay=0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: JaxlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.close(params.notebook_document.uri)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: JaxlintServer, params: types.HoverParams) -> Optional[types.Hover]:
        from jaxlint.pages import page_text

        pub = ls.published.get(params.text_document.uri)
        if pub is None:
            return None
        parts, first = [], None
        for f in pub.findings:
            rng = pub.lines.range(f.line, f.col, f.end_line, f.end_col)
            if not convert.contains(rng, params.position) or f.code in {p[0] for p in parts}:
                continue
            first = first or rng
            page = page_text(f.code) or f"# {f.code}: {f.name}\n\n(no page)"
            parts.append((f.code, f"**{f.code}** {f.message}\n\n---\n\n{page.strip()}"))
        if not parts:
            return None
        return types.Hover(contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(p for _, p in parts)), range=first)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False))
    async def code_action(ls: JaxlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        pub = ls.published.get(uri)
        if pub is None:
            return []
        only = params.context.only
        wants = (lambda kind: only is None or any(kind == k or kind.startswith(k + ".") for k in only))
        actions: list[types.CodeAction] = []
        if wants(types.CodeActionKind.QuickFix):
            actions = _quick_fixes(ls, uri, pub, ls.findings_at(uri, params.range))
        # Fix-all only when asked for (fix-on-save) or when there is something safe to fix.
        asked = only is not None and wants(FIX_ALL)
        if asked or (only is None and any(_fix(f) and _fix(f).applicability == SAFE for f in pub.findings)):
            action = await _fix_all(ls, uri, pub)
            if action is not None:
                actions.append(action)
        return actions

    @server.command(CONFIRM_COMMAND)
    async def confirm_command(ls: JaxlintServer, *args: Any) -> dict:
        from jaxlint.server import confirming

        request_id = ls.protocol.msg_id
        task = asyncio.ensure_future(confirming.confirm_finding(ls, *args))
        ls.confirming[request_id] = task
        try:
            return await task
        except asyncio.CancelledError:
            return {"verdict": "cancelled"}
        finally:
            ls.confirming.pop(request_id, None)

    return server


def _fix(f: Finding) -> Optional[Fix]:
    fix = Fix.from_dict(f.fix)
    return fix if fix is not None and fix.edits and fix.applicability in (SAFE, UNSAFE) else None


def _edits_by_uri(ls: JaxlintServer, pub: Published, uri: str, fix: Fix) -> Optional[dict]:
    """A fix's edits per document: a notebook fix may touch another cell (an import)."""
    if pub.cell is None:
        return {uri: convert.text_edits(fix.edits, pub.lines)}
    cells = {p.cell: (cell_uri, p) for cell_uri, p in ls.published.items() if p.target == pub.target}
    changes: dict[str, list] = {}
    for e in fix.edits:
        if e.cell not in cells:
            return None
        cell_uri, cell_pub = cells[e.cell]
        changes.setdefault(cell_uri, []).extend(convert.text_edits([e], cell_pub.lines))
    return changes


def _quick_fixes(ls: JaxlintServer, uri: str, pub: Published, found) -> list[types.CodeAction]:
    from jaxlint.fixes.noqa import add_noqa_edits

    fixes, unsafe, others = [], [], []
    for f, diag in found:
        diags = [diag] if diag is not None else None
        fix = _fix(f)
        if fix is not None:
            changes = _edits_by_uri(ls, pub, uri, fix)
            if changes is not None:
                title = f"{fix.message} ({f.code})" if fix.applicability == SAFE \
                    else f"{fix.message} ({f.code}, unsafe fix: may change behaviour)"
                (fixes if fix.applicability == SAFE else unsafe).append(types.CodeAction(
                    title=title, kind=types.CodeActionKind.QuickFix, diagnostics=diags,
                    is_preferred=fix.applicability == SAFE,
                    edit=types.WorkspaceEdit(changes=changes)))
        noqa = add_noqa_edits(pub.text, {f.line: {f.code}})
        if noqa:
            others.append(types.CodeAction(
                title=f"Disable {f.code} for this line", kind=types.CodeActionKind.QuickFix,
                diagnostics=diags, edit=types.WorkspaceEdit(changes={uri: convert.text_edits(noqa, pub.lines)})))
        others.append(types.CodeAction(
            title=f"Confirm {f.code} under JAX (imports and runs this file's code)",
            diagnostics=diags, command=types.Command(title=f"Confirm {f.code} under JAX", command=CONFIRM_COMMAND,
                                  arguments=[uri, f.code, f.line, f.col])))
    return fixes + unsafe + others


async def _fix_all(ls: JaxlintServer, uri: str, pub: Published) -> Optional[types.CodeAction]:
    """Every safe fix, as `jaxlint check --fix` applies them, as one edit."""
    target = ls.targets.get(pub.target)
    job = ls._job(pub.target)
    if job is None or target is None:
        return None
    loop = asyncio.get_running_loop()
    try:
        if job["kind"] == "text":
            new = await loop.run_in_executor(None, ls.worker.call, "fix_all", job["uri"], job["path"], job["text"])
            if new is None:
                return None
            changes = {uri: convert.whole_text_edit(job["text"], new, convert.Lines(job["text"],
                                                                                     ls.workspace.position_codec))}
        else:
            new_cells = await loop.run_in_executor(None, ls.worker.call, "fix_all_notebook", job["path"],
                                                   [(k, t) for k, t, _ in job["cells"]])
            changes = {}
            for n, new in new_cells.items():
                _, old, cell_uri = job["cells"][n - 1]
                changes[cell_uri] = convert.whole_text_edit(old, new, convert.Lines(old, ls.workspace.position_codec))
            if not changes:
                return None
    except WorkerFailed:
        return None
    return types.CodeAction(title="Fix all safely fixable jaxlint findings", kind=FIX_ALL,
                            edit=types.WorkspaceEdit(changes=changes))


def serve(timeout: float = DEFAULT_TIMEOUT, debounce: float = DEFAULT_DEBOUNCE) -> int:
    """Run the server on standard input and output until `exit`, or until the input closes."""
    import sys

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="jaxlint server: %(levelname)s: %(message)s")
    # pygls logs a traceback for each malformed message; the client gets its error response.
    logging.getLogger("pygls").setLevel(logging.CRITICAL)
    server = create_server(timeout=timeout, debounce=debounce)
    code = [1]

    @server.feature(types.EXIT)
    def on_exit(ls: JaxlintServer, params: Any) -> None:
        # LSP: exit code 0 after `shutdown`, 1 without it.
        code[0] = 0 if ls.shutdown_requested else 1

    try:
        server.start_io()
    finally:
        server.worker.stop()
        for task in list(server.confirming.values()):
            task.cancel()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    # Not sys.exit: the thread pygls reads standard input with may still be blocked in a
    # read, and Python would wait for it at exit.
    os._exit(code[0])
