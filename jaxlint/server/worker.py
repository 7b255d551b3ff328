"""The warm analysis process: one per server, replaced when it dies or overruns.

libcst's native parser overflows the C stack on input Python accepts (an
8,000-term `a and b and ...` chain) and kills its interpreter with SIGSEGV; other
input can keep it busy for a long time. So the server never parses: it sends each
request to this process and waits at most `timeout` seconds. A crash or a timeout
costs that one request (the file gets a one-line diagnostic saying why), and the
next request starts a fresh process.

Requests and replies are pickles, each preceded by its length, over the child's
standard input and output. The child is started with `python -c` (never forked
from the server, which runs threads), keeps the server's standard error for its
log, and dies with the server (Linux's parent-death signal) or when its input closes.
"""

from __future__ import annotations

import os
import gc
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from typing import Any, BinaryIO, Optional

from jaxlint import processes

_LENGTH = struct.Struct(">Q")
# The child imports this very jaxlint, not one that the editor's working folder may hold.
_HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_MAIN = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
         "from jaxlint.server.worker import main; sys.exit(main())")


# Seconds a new worker may take to import jaxlint and lint its warm-up snippet.
_START_TIMEOUT = 60.0


class WorkerFailed(Exception):
    """The request crashed the worker or overran its time (`raised` False), or raised."""

    def __init__(self, message: str, raised: bool = False):
        super().__init__(message)
        self.raised = raised


class Worker:
    """The server's handle on the analysis process; `call` is safe from any thread."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self._proc: Optional[subprocess.Popen] = None
        self._lock = threading.Lock()
        self.restarts = 0

    def start(self) -> None:
        with self._lock:
            try:
                self._ensure()
            except (OSError, WorkerFailed):
                pass  # the first request tries again, and reports why

    def _ensure(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            if self._proc is not None:
                self.restarts += 1
            proc = subprocess.Popen(
                [sys.executable, "-c", _MAIN, _HERE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=None, close_fds=True)
            # Starting (imports and a warm-up lint) is not part of any file's time.
            if _receive(proc.stdout.fileno(), time.monotonic() + _START_TIMEOUT) != ("ready", None):
                _kill(proc)
                raise WorkerFailed("the analysis process did not start; see the server's log")
            self._proc = proc
        return self._proc

    def call(self, method: str, *args: Any, timeout: Optional[float] = None) -> Any:
        """`Analysis.method(*args)` in the worker; raises WorkerFailed."""
        with self._lock:
            try:
                proc = self._ensure()
            except OSError as exc:
                raise WorkerFailed(f"cannot start the analysis process: {exc}") from None
            deadline = time.monotonic() + (timeout or self.timeout)
            try:
                _send(proc.stdin, (method, args))
                reply = _receive(proc.stdout.fileno(), deadline)
            except (BrokenPipeError, OSError, EOFError):
                reply = None
            if reply is None:
                return self._failed(proc, deadline)
            kind, value = reply
            if kind != "ok":
                raise WorkerFailed(value, raised=True)
            return value

    def _failed(self, proc: subprocess.Popen, deadline: float):
        timed_out = proc.poll() is None and time.monotonic() >= deadline
        _kill(proc)
        self._proc = None
        self.restarts += 1
        if timed_out:
            raise WorkerFailed(f"took longer than {self.timeout:g} s to analyse; skipped")
        code = proc.returncode
        if code is not None and code < 0:
            # The cap is each file's own (Analysis.lint); SIGABRT is libcst failing to allocate.
            raise WorkerFailed(processes.crash_message(-code, None, capped=False))
        raise WorkerFailed(f"the analysis process exited early (status {code}); skipped")

    def stop(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()  # the child's cue to exit
            proc.wait(1.0)
        except (OSError, subprocess.TimeoutExpired):
            pass
        _kill(proc)

    @property
    def pid(self) -> Optional[int]:
        return self._proc.pid if self._proc is not None else None


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait()
    for fh in (proc.stdin, proc.stdout):
        try:
            fh.close()
        except OSError:
            pass


def _send(fh: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    fh.write(_LENGTH.pack(len(data)) + data)
    fh.flush()


def _receive(fd: int, deadline: float) -> Optional[Any]:
    """One reply, or None when the stream ends or the deadline passes first."""
    header = _read_exactly(fd, _LENGTH.size, deadline)
    if header is None:
        return None
    body = _read_exactly(fd, _LENGTH.unpack(header)[0], deadline)
    return None if body is None else pickle.loads(body)


def _read_exactly(fd: int, n: int, deadline: float) -> Optional[bytes]:
    chunks, left = [], n
    while left:
        wait = deadline - time.monotonic()
        if wait <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            continue
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read_request(fh: BinaryIO) -> Optional[Any]:
    header = fh.read(_LENGTH.size)
    if len(header) < _LENGTH.size:
        return None
    (n,) = _LENGTH.unpack(header)
    body = fh.read(n)
    return pickle.loads(body) if len(body) == n else None


def main() -> int:
    """The worker's loop: a request in, a reply out, until the input closes."""
    from jaxlint.server.analysis import Analysis

    processes.become_disposable(os.getppid())
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print goes to the log, not into the reply stream
    requests = sys.stdin.buffer
    analysis = Analysis()
    # Warm up: the first real request should not pay for importing the rules.
    analysis.lint("<warm-up>", "warm_up.py", "import jax\n\n@jax.jit\ndef f(x):\n    return x\n")
    analysis.forget("<warm-up>")
    # The cyclic garbage of each analysis (the last version's model) is collected after
    # its reply is sent, while the editor types, not in the middle of the next reply:
    # at 10,000 lines an automatic collection costs about 0.17 s.
    gc.collect()
    gc.freeze()  # the imported modules and rules: never worth scanning again
    gc.disable()
    _send(replies, ("ready", None))
    while True:
        request = _read_request(requests)
        if request is None:
            return 0
        method, args = request
        try:
            reply = ("ok", getattr(analysis, method)(*args))
        except Exception as exc:  # noqa: BLE001 - reported to the server, which goes on
            reply = ("raised", f"{type(exc).__name__}: {processes.safe_str(exc)}")
        _send(replies, reply)
        del reply
        analysis.settle()
        gc.collect()
        # What survives is the documents' state (parsed statements, the last findings),
        # kept from edit to edit: at 10,000 lines, walking it again after every edit costs
        # the collector far more than the edit's analysis. Frozen, it is never walked
        # again; it is acyclic (libcst trees, spans, findings), so reference counting
        # still frees it when a full run or `forget` replaces it.
        gc.freeze()
