"""`jaxlint server`, end to end: a real LSP client (pytest-lsp) drives the real server
process over stdio, as an editor does. Nothing is mocked: libcst parses, the worker
process crashes for real on the segfaulting file, and confirm runs JAX.

Also here: the incremental parse the server relies on gives the findings of a whole parse.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from jaxlint.config import Settings  # noqa: E402
from jaxlint.linter import lint_text  # noqa: E402
from jaxlint.pages import code_blocks, page_text  # noqa: E402
from jaxlint.source import PieceCache, parse_source_and_tree  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
SERVER = [sys.executable, "-m", "jaxlint", "server", "--timeout", "20"]

BAD = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


def generate(n_lines: int, dense: bool) -> str:
    """The large-file benchmark's generated module (a jitted function and a caller, repeated)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_large_file", ROOT / "benchmarks" / "bench_large_file.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate(n_lines, dense)


_MARKS = re.compile(r"[ \t]*# expect: JAX\d{3}(?:\s*,\s*JAX\d{3})*")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def client(lsp_client: LanguageClient, tmp_path):
    params = types.InitializeParams(
        capabilities=types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True),
            notebook_document=types.NotebookDocumentClientCapabilities(
                synchronization=types.NotebookDocumentSyncClientCapabilities())),
        root_uri=tmp_path.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")])
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


async def diagnostics_for(client, uri, timeout=20.0):
    """The next diagnostics published for `uri` (the test pops old ones first)."""
    deadline = time.monotonic() + timeout
    while uri not in client.diagnostics:
        if time.monotonic() > deadline:
            raise AssertionError(f"no diagnostics for {uri} within {timeout} s")
        await asyncio.sleep(0.02)
    return list(client.diagnostics.pop(uri))


def open_file(client, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=version, text=text)))
    return uri


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """A client applying LSP edits (the test texts are ASCII: UTF-16 units are characters)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p):
        return starts[p.line] + p.character if p.line < len(lines) else len(text)
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


def whole(text: str) -> types.Range:
    return types.Range(start=types.Position(line=0, character=0),
                       end=types.Position(line=len(text.splitlines()) + 1, character=0))


async def code_actions(client, uri, rng, only=None):
    """The code actions offered. (lsprotocol's client reads a CodeAction that carries a
    command as a bare Command: the confirm actions arrive as Commands.)"""
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=rng,
        context=types.CodeActionContext(diagnostics=[], only=only)))


# --------------------------------------------------------------------- diagnostics
@pytest.mark.asyncio
async def test_diagnostics_on_open_and_on_an_unsaved_change(client, tmp_path):
    path = tmp_path / "model.py"
    path.write_text("import jax\n", encoding="utf-8")  # the disk says nothing is wrong
    uri = open_file(client, path, BAD)
    (diag,) = await diagnostics_for(client, uri)
    assert (diag.code, diag.source, diag.severity) == ("JAX201", "jaxlint", types.DiagnosticSeverity.Error)
    # The flagged expression `x > 0`, not the whole line.
    assert (diag.range.start.line, diag.range.start.character) == (5, 7)
    assert (diag.range.end.line, diag.range.end.character) == (5, 12)
    assert "TracerBoolConversionError" in diag.message

    # An unsaved edit: the buffer, not the file, is linted.
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=5, character=7), end=types.Position(line=5, character=12)),
            text="x.ndim > 0")]))
    assert await diagnostics_for(client, uri) == []
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert await diagnostics_for(client, uri) == []


@pytest.mark.asyncio
async def test_removed_api_is_tagged_deprecated_and_a_burst_of_edits_ends_with_the_last(client, tmp_path):
    uri = open_file(client, tmp_path / "old.py", "import jax\n")
    assert await diagnostics_for(client, uri) == []
    text = "import jax\n"
    for version, line in enumerate(["y = 1\n", "z = jax.tree_map(abs, [1])\n", "w = 2\n"], 2):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text + line)]))
        text += line
    (diag,) = await diagnostics_for(client, uri)
    assert diag.code == "JAX901" and list(diag.tags) == [types.DiagnosticTag.Deprecated]
    await asyncio.sleep(0.3)
    assert uri not in client.diagnostics, "the burst was not coalesced: a stale result came after"


@pytest.mark.asyncio
async def test_configuration_from_pyproject_noqa_and_per_file_ignores(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxlint]\nignore = ["JAX501"]\n[tool.jaxlint.per-file-ignores]\n"scripts/*" = ["JAX201"]\n',
        encoding="utf-8")
    (tmp_path / "scripts").mkdir()
    keys = ("import jax\nkey = jax.random.PRNGKey(0)\na = jax.random.normal(key)\n"
            "b = jax.random.normal(key)\n")
    uri_keys = open_file(client, tmp_path / "keys.py", keys)
    uri_script = open_file(client, tmp_path / "scripts" / "run.py", BAD)
    noqa = BAD.replace("if x > 0:", "if x > 0:  # noqa: JAX201")
    uri_noqa = open_file(client, tmp_path / "quiet.py", noqa)
    uri_bad = open_file(client, tmp_path / "loud.py", BAD)
    assert await diagnostics_for(client, uri_keys) == []  # JAX501 ignored in pyproject
    assert await diagnostics_for(client, uri_script) == []  # per-file-ignores
    assert await diagnostics_for(client, uri_noqa) == []  # noqa
    assert [d.code for d in await diagnostics_for(client, uri_bad)] == ["JAX201"]


@pytest.mark.asyncio
async def test_target_jax_version_from_pyproject(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\ntarget-jax-version = "0.4.30"\n',
                                             encoding="utf-8")
    uri = open_file(client, tmp_path / "m.py", "import jax\ny = jax.tree_map(abs, [1])\n")
    # jax.tree_map was deprecated in 0.4.26 and removed in 0.6.0: at 0.4.30 it is a
    # deprecation (JAX906), not JAX901.
    assert [d.code for d in await diagnostics_for(client, uri)] == ["JAX906"]


# ------------------------------------------------------------------- code actions
@pytest.mark.asyncio
@pytest.mark.parametrize("code", ["JAX301", "JAX901"])
async def test_quick_fix_gives_the_rule_pages_fixed_example(client, tmp_path, code):
    blocks = code_blocks(page_text(code))
    example, fixed = blocks["Example"][0], blocks["Fixed"][0]
    uri = open_file(client, tmp_path / "example.py", example)
    (diag,) = await diagnostics_for(client, uri)
    actions = await code_actions(client, uri, diag.range)
    fixes = [a for a in actions if getattr(a, "edit", None) and a.title.endswith((f"({code})", "may change behaviour)"))]
    assert fixes, [a.title for a in actions]
    fix = fixes[0]
    assert fix.kind == types.CodeActionKind.QuickFix and fix.diagnostics[0].code == code
    assert ("unsafe" in fix.title) == (code == "JAX301")  # JAX301's fix is unsafe, JAX901's safe
    assert _MARKS.sub("", apply_edits(example, fix.edit.changes[uri])) == fixed


@pytest.mark.asyncio
async def test_safe_fixes_come_before_unsafe_ones_and_noqa_disables_the_line(client, tmp_path):
    text = "import jax\nimport jax.numpy as jnp\nx = jnp.zeros(3)\nx[0] = jax.tree_map(abs, 1.0)\n"
    uri = open_file(client, tmp_path / "two.py", text)
    diags = await diagnostics_for(client, uri)
    assert sorted(d.code for d in diags) == ["JAX301", "JAX901"]
    actions = await code_actions(client, uri, whole(text))
    titles = [a.title for a in actions]
    kinds = ["unsafe" if "unsafe" in t else "safe" for t in titles if a_fix(t)]
    assert kinds == sorted(kinds, key=lambda k: k == "unsafe") and "unsafe" in kinds and "safe" in kinds
    assert actions[0].is_preferred

    (noqa,) = [a for a in actions if a.title == "Disable JAX301 for this line"]
    after = apply_edits(text, noqa.edit.changes[uri])
    assert after.splitlines()[3] == "x[0] = jax.tree_map(abs, 1.0)  # noqa: JAX301"
    # The second one extends the same comment.
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=after)]))
    assert [d.code for d in await diagnostics_for(client, uri)] == ["JAX901"]
    actions = await code_actions(client, uri, whole(after))
    (noqa,) = [a for a in actions if a.title == "Disable JAX901 for this line"]
    assert apply_edits(after, noqa.edit.changes[uri]).splitlines()[3].endswith("# noqa: JAX301, JAX901")


def a_fix(title: str) -> bool:
    return not title.startswith(("Disable ", "Confirm ", "Fix all"))


@pytest.mark.asyncio
async def test_fix_all_is_exactly_jaxlint_check_fix(client, tmp_path):
    text = (ROOT / "fixtures" / "legacy_api_tutorial.py").read_text(encoding="utf-8")
    uri = open_file(client, tmp_path / "legacy_api_tutorial.py", text)
    assert await diagnostics_for(client, uri)
    actions = await code_actions(client, uri, whole(text), only=["source.fixAll.jaxlint"])
    (fix_all,) = actions
    assert fix_all.kind == "source.fixAll.jaxlint"
    fixed_by_server = apply_edits(text, fix_all.edit.changes[uri])
    copy = tmp_path / "cli" / "legacy_api_tutorial.py"
    copy.parent.mkdir()
    copy.write_text(text, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "jaxlint", "check", "--fix", "--no-cache", "-q", str(copy)],
                   env=ENV, capture_output=True, check=False)
    assert fixed_by_server == copy.read_text(encoding="utf-8") != text


# -------------------------------------------------------------------------- hover
@pytest.mark.asyncio
async def test_hover_shows_the_rule_page(client, tmp_path):
    uri = open_file(client, tmp_path / "h.py", BAD)
    (diag,) = await diagnostics_for(client, uri)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=diag.range.start))
    text = hover.contents.value
    assert hover.contents.kind == types.MarkupKind.Markdown
    for heading in ("# JAX201: traced-bool-conversion", "## What it does", "## Why is this bad?",
                    "## Example", "## Use instead", "## Fix safety"):
        assert heading in text
    assert all(link.startswith("https://") for link in re.findall(r"\]\(([^)]*)\)", text))
    nothing = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0)))
    assert nothing is None


# ---------------------------------------------------------------------- notebooks
@pytest.mark.asyncio
async def test_notebook_cells_are_linted_together_and_diagnostics_land_on_their_cell(client, tmp_path):
    nb_uri = (tmp_path / "train.ipynb").as_uri()
    cells = [("import jax\n\n@jax.jit\ndef step(x):\n    return x\n", types.NotebookCellKind.Code),
             ("# Notes\n", types.NotebookCellKind.Markup),
             ("@jax.jit\ndef g(n):\n    return list(range(n))\n", types.NotebookCellKind.Code)]
    cell_uris = [f"vscode-notebook-cell:{tmp_path}/train.ipynb#C{i}" for i in range(len(cells))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=nb_uri, notebook_type="jupyter-notebook", version=1,
            cells=[types.NotebookCell(kind=kind, document=u) for (_, kind), u in zip(cells, cell_uris)]),
        cell_text_documents=[types.TextDocumentItem(uri=u, language_id="python" if kind == 2 else "markdown",
                                                    version=1, text=text)
                             for (text, kind), u in zip(cells, cell_uris)]))
    # Cell 3 uses `jax` imported in cell 1: linted together, the finding is in cell 3, line 3.
    (diag,) = await diagnostics_for(client, cell_uris[2])
    assert diag.code == "JAX203" and diag.range.start.line == 2
    assert await diagnostics_for(client, cell_uris[0]) == []
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uris[2]), position=diag.range.start))
    assert "# JAX203" in hover.contents.value

    # Editing cell 3 clears it.
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=nb_uri, version=2),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            text_content=[types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=cell_uris[2], version=2),
                changes=[types.TextDocumentContentChangeWholeDocument(text="y = 1\n")])]))))
    assert await diagnostics_for(client, cell_uris[2]) == []


# ------------------------------------------------------------- crashes and hangs
SEGFAULT = "import jax\nx = " + " and ".join(f"a{i}" for i in range(8000)) + "\n"


@pytest.mark.asyncio
async def test_a_file_that_crashes_the_parser_costs_only_its_own_diagnostics(client, tmp_path):
    crash_uri = open_file(client, tmp_path / "crash.py", SEGFAULT)
    (diag,) = await diagnostics_for(client, crash_uri)
    assert "crashed" in diag.message and "SIGSEGV" in diag.message and "\n" not in diag.message
    assert diag.source == "jaxlint"
    uri = open_file(client, tmp_path / "fine.py", BAD)  # the server goes on, with a new worker
    assert [d.code for d in await diagnostics_for(client, uri)] == ["JAX201"]


@pytest.mark.asyncio
async def test_a_file_that_takes_too_long_gets_one_line_and_the_server_goes_on(tmp_path):
    server = RawServer(["--timeout", "0.2"])
    try:
        server.initialize(tmp_path)
        server.open(tmp_path / "big.py", generate(40_000, dense=False))
        (diag,) = server.diagnostics((tmp_path / "big.py").as_uri())
        assert diag["message"] == "took longer than 0.2 s to analyse; skipped"
        server.open(tmp_path / "small.py", BAD)
        assert [d["code"] for d in server.diagnostics((tmp_path / "small.py").as_uri())] == ["JAX201"]
    finally:
        server.kill()


# -------------------------------------------------- the protocol and the process
class RawServer:
    """The server process driven with hand-written bytes: for what a client library
    would never send (malformed messages) and for watching the process itself."""

    def __init__(self, args=()):
        self.proc = subprocess.Popen(SERVER + list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=ENV)
        self.buf = b""
        self.next_id = 1

    def send_bytes(self, body: bytes) -> None:
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, method, params=None, request=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            msg["id"] = self.next_id
            self.next_id += 1
        self.send_bytes(json.dumps(msg).encode())
        return msg.get("id")

    def receive(self, timeout=20.0):
        deadline = time.monotonic() + timeout
        while True:
            head, sep, rest = self.buf.partition(b"\r\n\r\n")
            if sep:
                n = int(re.search(rb"Content-Length: (\d+)", head).group(1))
                if len(rest) >= n:
                    self.buf = rest[n:]
                    return json.loads(rest[:n])
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError("no message from the server")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise AssertionError("the server closed its output")
            self.buf += chunk

    def response(self, msg_id):
        while True:
            msg = self.receive()
            if msg.get("id", "none") == msg_id and "method" not in msg:
                return msg

    def initialize(self, root: Path):
        self.response(self.send("initialize", {"processId": None, "rootUri": root.as_uri(),
                                               "capabilities": {}}, request=True))
        self.send("initialized", {})

    def open(self, path: Path, text: str):
        self.send("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "python",
                                                            "version": 1, "text": text}})

    def diagnostics(self, uri):
        while True:
            msg = self.receive()
            if msg.get("method") == "textDocument/publishDiagnostics" and msg["params"]["uri"] == uri:
                return msg["params"]["diagnostics"]

    def worker_pids(self) -> list[int]:
        """The server's child processes (its worker), from /proc."""
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.proc.pid:
                found.append(int(stat.parent.name))
        return found

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.mark.asyncio
async def test_malformed_messages_get_json_rpc_errors_and_the_server_goes_on(tmp_path):
    server = RawServer()
    try:
        server.initialize(tmp_path)
        server.send_bytes(b"{this is not json")
        assert server.receive()["error"]["code"] == -32700  # Parse error, id null
        server.send_bytes(b"[1, 2, 3]")
        reply = server.receive()
        assert reply["id"] is None and reply["error"]["code"] == -32600  # Invalid Request
        bad = server.send("textDocument/hover", {"no": "fields"}, request=True)
        assert server.response(bad)["error"]["code"] == -32602  # Invalid params, for its id
        unknown = server.send("jaxlint/noSuchMethod", {}, request=True)
        assert server.response(unknown)["error"]["code"] == -32601
        server.open(tmp_path / "a.py", BAD)
        assert [d["code"] for d in server.diagnostics((tmp_path / "a.py").as_uri())] == ["JAX201"]
    finally:
        server.kill()


def _gone(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":  # exited, waiting for its (dead) parent's reaper
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_shutdown_then_exit_ends_with_code_0_and_no_worker_left(tmp_path):
    server = RawServer()
    try:
        server.initialize(tmp_path)
        server.open(tmp_path / "a.py", BAD)
        server.diagnostics((tmp_path / "a.py").as_uri())
        workers = server.worker_pids()
        assert workers
        assert server.response(server.send("shutdown", None, request=True))["result"] is None
        server.send("exit")
        assert server.proc.wait(10) == 0
        assert all(_gone(pid) for pid in workers)
    finally:
        server.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_server_exits_when_the_editor_dies_and_stdin_closes(tmp_path):
    server = RawServer()
    try:
        server.initialize(tmp_path)
        server.open(tmp_path / "a.py", BAD)
        server.diagnostics((tmp_path / "a.py").as_uri())
        workers = server.worker_pids()
        assert workers
        server.proc.stdin.close()
        server.proc.wait(10)
        assert all(_gone(pid) for pid in workers)
    finally:
        server.kill()


def test_without_the_extra_the_command_prints_a_hint_and_exits_2(tmp_path):
    # pygls hidden from the import system stands for an environment without the extra.
    hide = tmp_path / "sitecustomize.py"
    hide.write_text("import importlib.util, sys\n_find = importlib.util.find_spec\n"
                    "importlib.util.find_spec = lambda n, *a: None if n == 'pygls' else _find(n, *a)\n")
    env = {**ENV, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ENV['PYTHONPATH']}"}
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "server"], env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=30)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "jaxlint: error: jaxlint server needs pygls and lsprotocol: pip install 'jaxlint[server]'"]


# ------------------------------------------------------------------------ confirm
@pytest.mark.asyncio
async def test_confirm_on_demand_reports_progress_and_puts_the_verdict_in_the_diagnostic(client, tmp_path):
    pytest.importorskip("jax")
    text = BAD + "\nf(1.0)\n"
    uri = open_file(client, tmp_path / "conf.py", text)
    (diag,) = await diagnostics_for(client, uri)
    assert "confirm" not in diag.message  # nothing ran: the server never runs code unless asked
    actions = await code_actions(client, uri, diag.range)
    assert "Confirm JAX201 under JAX (imports and runs this file's code)" in [a.title for a in actions]
    verdict = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="jaxlint.confirm", arguments=[uri, "JAX201", diag.range.start.line + 1,
                                              diag.range.start.character + 1]))
    assert verdict["verdict"] == "confirmed", verdict
    (diag,) = await diagnostics_for(client, uri)
    assert "confirm: confirmed" in diag.message
    (reports,) = client.progress_reports.values()
    assert [type(r).__name__ for r in (reports[0], reports[-1])] == ["WorkDoneProgressBegin", "WorkDoneProgressEnd"]
    assert reports[0].cancellable


@pytest.mark.asyncio
async def test_confirm_can_be_cancelled(client, tmp_path):
    pytest.importorskip("jax")
    marker = tmp_path / "ran"
    text = (f"import pathlib, time\npathlib.Path({str(marker)!r}).write_text('x')\ntime.sleep(60)\n" + BAD)
    uri = open_file(client, tmp_path / "slow.py", text)
    (diag,) = await diagnostics_for(client, uri)
    start = time.monotonic()
    running = asyncio.ensure_future(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="jaxlint.confirm", arguments=[uri, diag.code, diag.range.start.line + 1,
                                              diag.range.start.character + 1])))
    while not marker.exists():  # the module is being imported: confirm is under way
        assert time.monotonic() - start < 60
        await asyncio.sleep(0.05)
    (token,) = client.progress_reports
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    assert (await asyncio.wait_for(running, 20))["verdict"] == "cancelled"
    assert time.monotonic() - start < 40
    # Nothing of confirm is left running: no process still has the sleeping module open.
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "jaxlint.confirm.worker" not in out and "confirm_child" not in out


# ---------------------------------------------------------- incremental parsing
def _examples() -> list[tuple[str, str]]:
    out = [(p.name, p.read_text(encoding="utf-8")) for p in sorted((ROOT / "fixtures").glob("*.py"))]
    for page in sorted((ROOT / "rules").glob("JAX*.md")):
        for name, blocks in code_blocks(page.read_text(encoding="utf-8")).items():
            out += [(f"{page.stem}-{name}-{i}", b) for i, b in enumerate(blocks)]
    return out


def _key(result):
    return ([(f.line, f.col, f.end_line, f.end_col, f.code, f.message, json.dumps(f.fix, sort_keys=True))
             for f in result.findings], [(d.code, d.line, d.message) for d in result.diagnostics])


def test_parsing_in_pieces_gives_the_file_and_the_findings_of_a_whole_parse():
    settings = Settings(select=("JAX",))
    checked = 0
    for k, (name, text) in enumerate(_examples()):
        pieces = PieceCache()
        module, _ = parse_source_and_tree(text, name, pieces)
        assert getattr(module, "code", text) == text, name
        assert _key(lint_text(text, name, settings, pieces=pieces)) == _key(lint_text(text, name, settings)), name
        # After edits, with the pieces of the previous version reused: one of the file's
        # start, middle and end per example, in turn (all three for every example cost the
        # suite a minute and a half for no more kinds of edit).
        lines = text.splitlines(keepends=True)
        positions = list(range(0, len(lines), max(1, len(lines) // 3)))
        for i in positions[k % len(positions)::len(positions)] if positions else ():
            edited = "".join(lines[:i] + ["\n", "# an edit\n"] + lines[i + 1:])
            assert _key(lint_text(edited, name, settings, pieces=pieces)) == \
                _key(lint_text(edited, name, settings)), (name, i)
            checked += 1
    assert checked > 100


def test_an_edit_reparses_only_the_statements_it_touched():
    text = generate(2000, dense=True)
    pieces = PieceCache()
    first = lint_text(text, "g.py", Settings(), pieces=pieces)
    assert pieces.parsed > 100
    edited = text.replace("a = jnp.sin(x) + y * 7\n", "a = jnp.cos(x) + y * 7\n")
    assert edited != text
    again = lint_text(edited, "g.py", Settings(), pieces=pieces)
    assert pieces.parsed == 1
    assert _key(again) == _key(lint_text(edited, "g.py", Settings())) and len(first.findings) > 10
