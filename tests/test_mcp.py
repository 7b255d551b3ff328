"""`jaxlint mcp`, end to end: the MCP SDK's own stdio client starts the server as a
subprocess and calls every tool, as a coding agent does. Nothing is mocked: libcst
really crashes on the hostile input, and confirm runs JAX.

One server serves the whole module (each bad input must leave it serving for the next
test); the tests that end a server start their own.
"""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp.server.mcpserver")
import anyio  # noqa: E402
from anyio.from_thread import start_blocking_portal  # noqa: E402
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

from jaxlint.rules import all_rules  # noqa: E402
from proc_tree import alive, descendants  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ENV = {"PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}
SERVER = [sys.executable, "-m", "jaxlint", "mcp"]

BAD = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
# Three findings: JAX201 (no fix), JAX901 (a safe fix), JAX301 (an unsafe fix).
TRAIN = """\
import jax
import jax.numpy as jnp


@jax.jit
def step(params, x):
    if x.sum() > 0:
        x = -x
    return jax.tree_map(lambda p: p - 0.1 * x.mean(), params)


def update(x):
    x = jnp.zeros(3)
    x[0] = 1.0
    return x
"""
# libcst overflows the C stack on this (Python's parser accepts it): SIGSEGV.
SEGFAULT = "import jax\nx = " + " and ".join(f"a{i}" for i in range(8000)) + "\n"
FINDING_KEYS = {"path", "code", "name", "message", "line", "column", "end_line", "end_column",
                "severity", "fix"}


class Client:
    """The SDK's ClientSession, driven from synchronous tests through an anyio portal."""

    def __init__(self, portal, session, cwd: Path):
        self.portal, self.session, self.cwd = portal, session, cwd

    def call(self, tool: str, arguments: dict | None = None, progress=None):
        return self.portal.call(lambda: self.session.call_tool(tool, arguments or {},
                                                               progress_callback=progress))

    def ok(self, tool: str, arguments: dict | None = None, progress=None):
        result = self.call(tool, arguments, progress)
        assert not result.is_error, result.content[0].text
        # The JSON text and the structured content say the same.
        assert json.loads(result.content[0].text) == result.structured_content or tool == "explain_rule"
        return result.structured_content

    def error(self, tool: str, arguments: dict) -> str:
        """A tool error: one line, and the server still answers the next call."""
        result = self.call(tool, arguments)
        assert result.is_error
        (content,) = result.content
        assert "\n" not in content.text.strip(), content.text
        return content.text


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("mcp")
    params = StdioServerParameters(command=SERVER[0], args=SERVER[1:], env=ENV, cwd=str(cwd))
    with tempfile.TemporaryFile("w+") as errlog, start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_client(params, errlog=errlog)) as (read, write):
            with portal.wrap_async_context_manager(ClientSession(read, write)) as session:
                portal.call(session.initialize)
                yield Client(portal, session, cwd)
        errlog.seek(0)
        assert "Traceback" not in errlog.read()


def where(findings) -> list[tuple[str, int, int]]:
    return [(f["code"], f["line"], f["column"]) for f in findings]


# ------------------------------------------------------------------ the tools
def test_tools_are_named_described_and_typed(server):
    tools = {t.name: t for t in server.portal.call(server.session.list_tools).tools}
    params = {name: set(t.input_schema["properties"]) for name, t in tools.items()}
    assert params == {"list_rules": set(), "explain_rule": {"code"},
                      "lint": {"source", "path", "filename", "select"},
                      "fix": {"source", "path", "unsafe", "write"},
                      "confirm": {"source", "path", "timeout_s"}}
    for t in tools.values():
        assert len(t.description) > 100
        assert all(p.get("description") for p in t.input_schema["properties"].values())
    assert "RUNS the code" in tools["confirm"].description
    assert tools["lint"].input_schema["properties"]["filename"]["default"] == "snippet.py"
    assert tools["confirm"].input_schema["properties"]["timeout_s"]["default"] == 120


def test_list_rules(server):
    rules = {r["code"]: r for r in server.ok("list_rules")["rules"]}
    assert list(rules) == list(all_rules())
    assert rules["JAX201"] == {"code": "JAX201", "name": "traced-bool-conversion",
                               "summary": all_rules()["JAX201"].summary, "severity": "error",
                               "default": True, "fix": []}
    assert rules["JAX901"]["fix"] == ["safe"] and rules["JAX302"]["fix"] == ["unsafe"]
    assert {c for c, r in rules.items() if not r["default"]} == \
        {c for c, r in all_rules().items() if not r.default} != set()


def test_explain_rule_is_the_cli_page(server):
    cli = subprocess.run([sys.executable, "-m", "jaxlint", "rule", "JAX201"], capture_output=True, text=True,
                         env={**os.environ, **ENV}, check=True)
    result = server.call("explain_rule", {"code": "JAX201"})
    assert not result.is_error and result.content[0].text == cli.stdout
    assert result.content[0].text.startswith("# JAX201")


def test_lint_a_text(server):
    (f,) = server.ok("lint", {"source": BAD})["findings"]
    assert set(f) == FINDING_KEYS
    assert (f["path"], f["code"], f["name"], f["severity"], f["fix"]) == \
        ("snippet.py", "JAX201", "traced-bool-conversion", "error", None)
    assert (f["line"], f["column"], f["end_line"], f["end_column"]) == (6, 8, 6, 13)
    assert "TracerBoolConversionError" in f["message"]
    # Text that reads as JSON is still text (the SDK parses JSON in other arguments).
    assert server.ok("lint", {"source": "[1, 2]"}) == {"findings": [], "files": 1}
    assert server.error("lint", {"source": 12}).endswith("invalid arguments: source: Value error, must be a string")


def test_lint_fix_objects_are_ruffs(server):
    found = server.ok("lint", {"source": TRAIN})["findings"]
    assert where(found) == [("JAX201", 7, 8), ("JAX901", 9, 12), ("JAX301", 14, 5)]
    fix = found[1]["fix"]
    assert fix["applicability"] == "safe" and fix["edits"] == [
        {"content": "jax.tree.map", "location": {"row": 9, "column": 12},
         "end_location": {"row": 9, "column": 24}}]
    assert found[2]["fix"]["applicability"] == "unsafe"


def test_lint_select(server):
    assert where(server.ok("lint", {"source": TRAIN, "select": ["JAX9"]})["findings"]) == [("JAX901", 9, 12)]
    assert where(server.ok("lint", {"source": TRAIN, "select": "JAX2,JAX3"})["findings"]) == \
        [("JAX201", 7, 8), ("JAX301", 14, 5)]


def test_lint_a_folder_with_a_notebook_and_its_config(server, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX901"]\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "train.py").write_text(TRAIN)
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# notes"},
                    {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": BAD}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "pkg" / "explore.ipynb").write_text(json.dumps(nb))
    answer = server.ok("lint", {"path": str(tmp_path)})
    assert answer["files"] == 2
    found = [(Path(f["path"]).name, f.get("cell"), f["code"], f["line"]) for f in answer["findings"]]
    # JAX901 is ignored by the pyproject.toml above the files.
    assert found == [("explore.ipynb", 2, "JAX201", 6), ("train.py", None, "JAX201", 7),
                     ("train.py", None, "JAX301", 14)]
    assert answer["findings"][2]["fix"]["applicability"] == "unsafe"
    # The second answer comes from the cache, fixes included.
    assert server.ok("lint", {"path": str(tmp_path)}) == answer
    assert (tmp_path / ".jaxlint_cache").is_dir()
    # A text named inside that folder gets its configuration, and a notebook's JSON is one.
    named = server.ok("lint", {"source": TRAIN, "filename": str(tmp_path / "pkg" / "x.py")})["findings"]
    assert [f["code"] for f in named] == ["JAX201", "JAX301"]
    cells = server.ok("lint", {"source": json.dumps(nb), "filename": "nb.ipynb"})["findings"]
    assert [(f["cell"], f["code"]) for f in cells] == [(2, "JAX201")]


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("arguments, reason", [
    ({}, "give either `source` (the code as text) or `path` (a file or folder), not neither"),
    ({"source": BAD, "path": "x.py"}, "not both"),
    ({"path": "/no/such/file.py"}, "no such file or directory: /no/such/file.py"),
    ({"source": BAD, "select": ["JAX999"]}, "unknown rule code or prefix `JAX999`"),
    ({"source": BAD, "select": ["no way"]}, "invalid rule code or prefix"),
])
def test_bad_lint_arguments_are_tool_errors(server, arguments, reason):
    assert reason in server.error("lint", arguments)
    assert server.ok("lint", {"source": BAD})["findings"]  # still serving


def test_unknown_rule_is_a_tool_error(server):
    assert server.error("explain_rule", {"code": "JAX999"}).endswith(
        "unknown rule `JAX999` (list_rules gives every code)")


def test_a_bad_configuration_is_a_tool_error(server, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX999"]\n')
    (tmp_path / "a.py").write_text(BAD)
    assert "unknown rule code or prefix `JAX999`" in server.error("lint", {"path": str(tmp_path / "a.py")})


def test_files_that_cannot_be_linted_are_E902_and_E999(server, tmp_path):
    (tmp_path / "binary.py").write_bytes(b"import jax\x00\x01")
    (tmp_path / "latin1.py").write_bytes(b"import jax\nname = '\xe9'\n")
    (tmp_path / "broken.py").write_text("import jax\ndef f(:\n")
    (tmp_path / "crash.py").write_text(SEGFAULT)
    (tmp_path / "dangling.py").symlink_to(tmp_path / "gone.py")
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "fine.py").write_text(BAD)
    found = {Path(f["path"]).name: f for f in server.ok("lint", {"path": str(tmp_path)})["findings"]}
    assert {name: (f["code"], f["name"]) for name, f in found.items()} == {
        "binary.py": ("E902", "io-error"), "latin1.py": ("E902", "io-error"),
        "broken.py": ("E999", "syntax-error"), "crash.py": ("E902", "io-error"),
        "dangling.py": ("E902", "io-error"), "fifo.py": ("E902", "io-error"), "fine.py": ("JAX201", "traced-bool-conversion")}
    assert "binary file" in found["binary.py"]["message"]
    assert "cannot decode" in found["latin1.py"]["message"]
    assert found["broken.py"]["line"] == 2 and found["broken.py"]["message"].startswith("SyntaxError")
    assert "crashed" in found["crash.py"]["message"]
    assert "broken symbolic link" in found["dangling.py"]["message"]
    assert "FIFO" in found["fifo.py"]["message"]
    for f in found.values():
        assert set(f) == FINDING_KEYS and "\n" not in f["message"]


def test_a_text_that_crashes_the_parser_costs_only_that_call(server):
    (f,) = server.ok("lint", {"source": SEGFAULT})["findings"]
    assert f["code"] == "E902" and "SIGSEGV" in f["message"]
    (f,) = server.ok("lint", {"source": "import jax\nif True\n"})["findings"]
    assert (f["code"], f["line"]) == ("E999", 2)
    assert server.ok("lint", {"source": BAD})["findings"]


# ------------------------------------------------------------------ fix
def test_fix_a_text(server):
    answer = server.ok("fix", {"source": TRAIN})
    fixed = TRAIN.replace("jax.tree_map", "jax.tree.map")
    assert answer["source"] == fixed
    assert answer["diff"] == "".join(difflib.unified_diff(
        TRAIN.splitlines(keepends=True), fixed.splitlines(keepends=True), "snippet.py", "snippet.py"))
    assert answer["fixed"] == [{"path": "snippet.py", "code": "JAX901", "count": 1}]
    assert where(answer["remaining"]) == [("JAX201", 7, 8), ("JAX301", 14, 5)]
    assert answer["written"] == []
    unsafe = server.ok("fix", {"source": TRAIN, "unsafe": True})
    assert "    x = x.at[0].set(1.0)\n" in unsafe["source"]
    assert where(unsafe["remaining"]) == [("JAX201", 7, 8)]


def test_fix_writes_a_file_only_when_asked(server, tmp_path):
    path = tmp_path / "train.py"
    path.write_text(TRAIN)
    dry = server.ok("fix", {"path": str(path)})
    assert path.read_text() == TRAIN and dry["written"] == [] and dry["fixed"][0]["code"] == "JAX901"
    done = server.ok("fix", {"path": str(path), "write": True})
    assert done["written"] == [str(path)] and path.read_text() == done["source"] == dry["source"]
    assert [f.name for f in tmp_path.iterdir()] == ["train.py"]  # replaced atomically: no leftover
    again = server.ok("fix", {"path": str(path), "write": True})
    assert (again["diff"], again["fixed"], again["written"]) == ("", [], [])


def test_fix_bad_input(server, tmp_path):
    assert "write=True needs a `path`" in server.error("fix", {"source": TRAIN, "write": True})
    assert "no such file or directory" in server.error("fix", {"path": str(tmp_path / "nope.py")})
    (tmp_path / "crash.py").write_text(SEGFAULT)
    (tmp_path / "binary.py").write_bytes(b"\x00\x01")
    (tmp_path / "broken.py").write_text("import jax\njax.tree_map(f, t\n")
    answer = server.ok("fix", {"path": str(tmp_path), "write": True})
    problems = {Path(f["path"]).name: f["code"] for f in answer["remaining"]}
    assert problems == {"crash.py": "E902", "binary.py": "E902", "broken.py": "E999"}
    assert answer["written"] == [] and (tmp_path / "broken.py").read_text() == "import jax\njax.tree_map(f, t\n"
    assert server.ok("fix", {"source": SEGFAULT})["remaining"][0]["code"] == "E902"


# ------------------------------------------------------------------ confirm
def test_confirm_runs_each_finding_under_jax_with_progress(server, tmp_path):
    pytest.importorskip("jax")
    path = tmp_path / "model.py"
    path.write_text(BAD)
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    answer = server.ok("confirm", {"path": str(path), "timeout_s": 120}, progress=on_progress)
    (f,) = answer["findings"]
    assert (f["code"], f["verdict"]) == ("JAX201", "confirmed")
    assert "TracerBoolConversionError" in f["summary"] + f["evidence"]
    assert answer["device"]
    assert progress[0][:2] == (0, 120) and "1 finding in 1 file" in progress[0][2]
    assert progress[-1] == (120, 120, "done")


def test_confirm_a_text_and_its_limits(server):
    pytest.importorskip("jax")
    (f,) = server.ok("confirm", {"source": BAD, "timeout_s": 120})["findings"]
    assert (f["path"], f["verdict"]) == ("snippet.py", "confirmed")
    # A syntax error cannot run; nothing else to confirm.
    (f,) = server.ok("confirm", {"source": "import jax\nif True\n"})["findings"]
    assert (f["code"], f["verdict"]) == ("E999", "could not run")
    assert server.ok("confirm", {"source": "import jax\n"}) == {"findings": [], "device": None}
    assert server.error("confirm", {"source": BAD, "timeout_s": 0}).endswith(
        "invalid arguments: timeout_s: Input should be greater than 0")
    # A limit too short to start JAX: every finding says so, and nothing is left running.
    start = time.monotonic()
    (f,) = server.ok("confirm", {"source": BAD, "timeout_s": 0.5})["findings"]
    assert time.monotonic() - start < 10
    assert (f["verdict"], f["summary"]) == ("could not run", "confirm did not finish within timeout_s=0.5 s")


def test_cancelling_confirm_stops_its_processes(server):
    pytest.importorskip("jax")
    before = set(descendants(os.getpid()))
    started: list[int] = []

    async def confirm_then_cancel() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: server.session.call_tool(
                "confirm", {"source": BAD + "\nimport time\ntime.sleep(120)\n"}))
            deadline = time.monotonic() + 60
            # The confirm child, its JAX worker and the fork running the module.
            while len(started) < 3 and time.monotonic() < deadline:
                await anyio.sleep(0.1)
                started[:] = sorted(set(descendants(os.getpid())) - before)
            tg.cancel_scope.cancel()  # the SDK sends notifications/cancelled

    server.portal.call(confirm_then_cancel)
    assert len(started) >= 3
    deadline = time.monotonic() + 15
    while alive(started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(started) == []
    assert server.ok("lint", {"source": BAD})["findings"]


# ------------------------------------------------------------------ the process
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_closing_stdin_mid_confirm_ends_the_server_and_every_child(tmp_path):
    """The raw protocol, so the test (not the SDK's shutdown) closes the input."""
    pytest.importorskip("jax")
    proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path,
                            env={**os.environ, **ENV})

    def send(message: dict) -> None:
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        proc.stdin.flush()

    try:
        send({"id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})
        assert json.loads(proc.stdout.readline())["result"]["serverInfo"]["name"] == "jaxlint"
        send({"method": "notifications/initialized"})
        # Module-level code that outlives the test unless it is stopped.
        hang = BAD + "\nimport time\ntime.sleep(120)\n"
        send({"id": 2, "method": "tools/call", "params": {"name": "confirm", "arguments": {"source": hang}}})
        deadline = time.monotonic() + 60
        children: list[int] = []
        while time.monotonic() < deadline:  # the confirm child, its JAX worker and the fork running the code
            children = descendants(proc.pid)
            if len(children) >= 3:
                break
            time.sleep(0.1)
        assert len(children) >= 3
        proc.stdin.close()
        assert proc.wait(timeout=20) == 0
        deadline = time.monotonic() + 15
        while alive(children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert alive(children) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_mcp_server_loads_no_other_front_end():
    """(Its own imports name no click: tests/test_layers.py. The SDK itself loads click,
    through uvicorn.)"""
    code = ("import sys, jaxlint.mcp_server; "
            "print(sorted(m for m in sys.modules if m in "
            "('jaxlint.cli', 'jaxlint.fix_command', 'jaxlint.flake8_plugin') or m.startswith('jaxlint.server')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **ENV},
                         check=True).stdout
    assert out.strip() == "[]"


def test_help_lists_the_command():
    out = subprocess.run([sys.executable, "-m", "jaxlint", "--help"], capture_output=True, text=True,
                         env={**os.environ, **ENV}, check=True).stdout
    assert "jaxlint mcp " in out


def test_without_the_sdk_the_command_says_what_to_install():
    code = "import sys; sys.modules['mcp'] = None; from jaxlint.cli import main; main(['mcp'])"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **ENV},
                          stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("jaxlint: error: jaxlint mcp needs the MCP SDK 2.x: pip install 'jaxlint[mcp]'")
    assert len(proc.stderr.splitlines()) == 1
