"""Edit-to-diagnostics latency of `jaxlint server`, driven over stdio as an editor drives it.

Usage: python benchmarks/bench_server.py [--lines 1000 10000] [--edits 40] [--debounce-ms 25]
                                         [--pause-ms 0]

For each size: open the large-file benchmark's generated module, wait for its
diagnostics, then make `--edits` single edits, one at a time, each in a random
function (a `textDocument/didChange` with one incremental change, as an editor
sends a keystroke). The latency of one edit is from sending the change to
receiving `textDocument/publishDiagnostics` for that document version. It
includes the server's debounce (`--debounce-ms`, the server's default 25 ms), the
JSON-RPC round trip and the worker process. Prints the median and the 95th
percentile per size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_large_file import generate  # noqa: E402


class Editor:
    def __init__(self, debounce_ms: int):
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "server", "--debounce-ms", str(debounce_ms)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.buf = b""
        self.ids = 0

    def send(self, method, params, request=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.ids += 1
            msg["id"] = self.ids
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return msg.get("id")

    def receive(self, timeout=120.0):
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
                raise TimeoutError("no message from the server")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("the server closed its output")
            self.buf += chunk

    def wait_for(self, predicate):
        while True:
            msg = self.receive()
            if predicate(msg):
                return msg

    def diagnostics(self, uri, version):
        return self.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == uri and m["params"].get("version") == version)

    def close(self):
        rid = self.send("shutdown", None, request=True)
        self.wait_for(lambda m: m.get("id") == rid)
        self.send("exit", None)
        self.proc.wait(10)


def measure(editor: Editor, folder: Path, n_lines: int, edits: int, rng: random.Random,
            pause: float = 0.0) -> list[float]:
    text = generate(n_lines, dense=False)
    lines = text.split("\n")
    path = folder / f"generated_{n_lines}.py"
    uri = path.as_uri()
    editor.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                          "text": text}})
    editor.diagnostics(uri, 1)
    # Where the functions' first statement sits: `    a = jnp.sin(x) + y * N`.
    targets = [i for i, line in enumerate(lines) if line.startswith("    a = jnp.sin(x) + y * ")]
    times = []
    for version in range(2, edits + 2):
        time.sleep(pause)  # a typist's pause between edits (`--pause-ms`)
        row = rng.choice(targets)
        col = len(lines[row])
        start = time.perf_counter()
        editor.send("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": row, "character": col},
                                          "end": {"line": row, "character": col}}, "text": "1"}]})
        editor.diagnostics(uri, version)
        times.append(time.perf_counter() - start)
        lines[row] += "1"
    editor.send("textDocument/didClose", {"textDocument": {"uri": uri}})
    return times


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--debounce-ms", type=int, default=25)
    ap.add_argument("--pause-ms", type=int, default=0,
                    help="wait this long after each edit's diagnostics before the next edit")
    args = ap.parse_args()
    rng = random.Random(0)
    editor = Editor(args.debounce_ms)
    with tempfile.TemporaryDirectory() as tmp:
        rid = editor.send("initialize", {"processId": os.getpid(), "rootUri": Path(tmp).as_uri(),
                                         "capabilities": {}}, request=True)
        editor.wait_for(lambda m: m.get("id") == rid)
        editor.send("initialized", {})
        print(f"edit-to-diagnostics latency, {args.edits} edits per file, debounce {args.debounce_ms} ms, "
              f"pause {args.pause_ms} ms")
        for n in args.lines:
            times = measure(editor, Path(tmp), n, args.edits, rng, args.pause_ms / 1000)
            print(f"  {n:>6,} lines: median {statistics.median(times) * 1000:6.0f} ms, "
                  f"p95 {p95(times) * 1000:6.0f} ms, max {max(times) * 1000:6.0f} ms")
        editor.close()


if __name__ == "__main__":
    main()
