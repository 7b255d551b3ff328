"""Child processes and signals: stop cleanly, and let a crash cost one file.

Two things every part of jaxlint that starts a process shares:

- **Cleanup on SIGINT / SIGTERM.** A part that starts a worker, a process group
  or a temporary folder registers how to remove it (`cleanup(...)`). Within
  `handling_signals()` either signal runs every registered cleanup, then raises
  `Interrupted`, which the command line turns into exit code 130 (SIGINT) or
  143 (SIGTERM), as a shell reports a process stopped by that signal. No
  traceback, no child and no temporary folder is left behind.
- **Isolation.** libcst's native parser overflows the C stack on input that
  Python's own parser accepts (an 8,000-term `a and b and ...` chain), which kills
  the interpreter with SIGSEGV. `isolated(fn, ...)` runs `fn` in a forked child
  and returns its result, so such a crash becomes an `IsolationFailed` for one
  file. The runner's workers are disposable already (the runner replaces one
  that dies), so inside them `isolated` calls `fn` directly.
- **A memory cap.** A disposable process analysing one file may grow by at most
  the cap (`cap_memory`, an address-space limit): past it Python raises
  MemoryError and libcst's native parser aborts (SIGABRT), and either costs
  that one file a diagnostic (`memory_message`). Only disposable processes are
  capped, never the user's own.
"""

from __future__ import annotations

import faulthandler
import gc
import itertools
import os
import pickle
import select
import shutil
import signal
import sys
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional

try:
    import resource
except ImportError:  # pragma: no cover - not POSIX
    resource = None  # type: ignore[assignment]

_cleanups: dict[int, Callable[[], None]] = {}
_tokens = itertools.count()
# True in a process whose death the parent already survives (a runner worker, a forked child).
_disposable = False


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived; the registered cleanups have run."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class IsolationFailed(Exception):
    """The isolated call crashed its process or overran its time (`raised` False), or raised."""

    def __init__(self, message: str, raised: bool = False):
        super().__init__(message)
        self.raised = raised


# ----------------------------------------------------------------- cleanups
@contextmanager
def cleanup(fn: Callable[[], None]) -> Iterator[None]:
    """Run `fn` if the run is interrupted while the block is active."""
    token = next(_tokens)
    _cleanups[token] = fn
    try:
        yield
    finally:
        _cleanups.pop(token, None)


def kill_process_group(pgid: int) -> Callable[[], None]:
    def kill() -> None:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _reap(pgid)
    return kill


def kill_process(pid: int) -> Callable[[], None]:
    def kill() -> None:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _reap(pid)
    return kill


def remove_tree(path: str) -> Callable[[], None]:
    return lambda: shutil.rmtree(path, ignore_errors=True)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except (ChildProcessError, OSError):
        pass  # not our child, or reaped already (multiprocessing reaps its own)


def run_cleanups() -> None:
    while _cleanups:
        _, fn = _cleanups.popitem()
        try:
            fn()
        except Exception:  # noqa: BLE001 - one failed cleanup must not stop the others
            pass


def _on_signal(signum: int, frame) -> None:
    # A second Ctrl-C while cleaning up must not interrupt the cleanup.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    run_cleanups()
    raise Interrupted(signum)


@contextmanager
def handling_signals() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM clean up, then raise `Interrupted`.

    The previous handlers come back afterwards (jaxlint may run inside another
    program, such as a test runner). Outside the main thread this does nothing.
    """
    previous = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, _on_signal)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


# ------------------------------------------------------------ child processes
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT / SIGTERM around a fork whose child runs in a function that does not
    return here (multiprocessing's): the child must not run the parent's handler before
    `become_disposable` replaces it. The parent gets a held signal afterwards."""
    held = _hold_signals()
    try:
        yield
    finally:
        _release_signals(held)


def _hold_signals():
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)


def _release_signals(previous) -> None:
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def become_disposable(parent: Optional[int] = None) -> None:
    """In a freshly forked child: leave signals and cleanup to the parent.

    Ctrl-C reaches the whole foreground process group; the child ignores it (no
    KeyboardInterrupt traceback) and the parent kills it. SIGTERM kills it outright.
    On Linux the child also dies with its parent, even one killed with SIGKILL.
    """
    global _disposable
    _disposable = True
    # A crash here is expected and reported by the parent in one line, not as a dump.
    faulthandler.disable()
    _cleanups.clear()  # the parent's workers are not this child's to kill
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # held by signals_held()
    _die_with_parent(parent)


def _libc():
    # Loaded in the parent, once: importing ctypes in every forked child costs more than the fork.
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True)
    except (OSError, ImportError):  # pragma: no cover
        return None


_LIBC = _libc() if sys.platform.startswith("linux") else None
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: Optional[int]) -> None:
    if _LIBC is None:  # pragma: no cover - not Linux: the parent's cleanup is all there is
        return
    try:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover
        return
    if parent is not None and os.getppid() != parent:  # the parent died before prctl
        os._exit(1)


# ------------------------------------------------------------- memory cap
# The address-space limit cap_memory set in this process (bytes), and the cap it came from.
_limit: Optional[int] = None
_cap: Optional[int] = None
# A MemoryError this close to the limit was the cap; further from it, Python's parser
# ran out of its own stack on deep nesting (it raises MemoryError for `- - - ... 1`).
_NEAR_LIMIT = 64 * 1024 * 1024


def _address_space(field: str = "VmSize") -> Optional[int]:
    try:
        with open("/proc/self/status", "rb") as fh:
            for line in fh:
                if line.startswith(field.encode() + b":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def cap_memory(cap: Optional[int]) -> None:
    """From now on this (disposable) process may grow by at most `cap` bytes; None: no cap.

    Called before each file: the cap is on what that file's analysis adds.
    """
    global _limit, _cap
    if resource is None or not sys.platform.startswith("linux"):  # RLIMIT_AS: not enforced on macOS
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    size = _address_space() if cap is not None else None
    if size is None:
        if _limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        _limit = _cap = None
        return
    limit = size + cap
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    _limit, _cap = limit, cap


def hit_memory_cap() -> bool:
    """Whether this process's growth reached its cap (so a MemoryError is the cap's)."""
    if _limit is None:
        return False
    peak = _address_space("VmPeak")
    return peak is not None and peak >= _limit - _NEAR_LIMIT


def memory_message(cap: Optional[int]) -> str:
    if cap is None:  # the cap was set where it is not known (the server's analysis process)
        return "needs more memory to analyse than the memory-limit setting allows; skipped"
    return (f"needs more than {cap / (1024 * 1024):,.0f} MiB of memory to analyse (the memory-limit "
            f"setting); skipped")


def crash_message(signum: int, cap: Optional[int], capped: bool = True) -> str:
    """Why a child died of `signum`: libcst's parser aborts when an allocation fails."""
    if signum == signal.SIGABRT and (cap is not None or not capped):
        return memory_message(cap)
    return f"the parser crashed on this file ({_signal_name(signum)}); skipped"


def silence_stderr() -> None:
    """In a disposable child: what a dying native parser prints ("memory allocation of
    N bytes failed", a backtrace) is not for the user; the parent says why in one line."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
    except OSError:  # pragma: no cover
        pass


def isolated(fn: Callable[..., Any], *args: Any, timeout: float, memory: Optional[int] = None) -> Any:
    """`fn(*args)` run in a forked child; its (picklable) result.

    Raises IsolationFailed when the child dies (a signal such as SIGSEGV), takes
    longer than `timeout` seconds, grows by more than `memory` bytes, or `fn` raises.
    """
    if _disposable or not hasattr(os, "fork"):
        return fn(*args)
    parent = os.getpid()
    read_end, write_end = os.pipe()
    held = _hold_signals()  # released by the child in become_disposable, by the parent below
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child; its result is what the tests check
        try:
            # A short-lived child: no collection passes, which would touch (and copy) every
            # page shared with the parent.
            gc.disable()
            os.close(read_end)
            become_disposable(parent)
            if memory is not None:
                silence_stderr()
                cap_memory(memory)
            try:
                outcome = ("ok", fn(*args))
            except MemoryError:
                outcome = ("memory", None)
            except BaseException as exc:  # noqa: BLE001 - reported to the parent
                outcome = ("raised", f"{type(exc).__name__}: {safe_str(exc)}")
            try:
                data = pickle.dumps(outcome)
            except Exception as exc:  # noqa: BLE001
                data = pickle.dumps(("raised", f"cannot return the result: {safe_str(exc)}"))
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view):]
        finally:
            os._exit(0)
    os.close(write_end)
    with cleanup(kill_process(pid)):
        _release_signals(held)  # a signal held since the fork now finds the child registered
        try:
            data = _read_all(read_end, Budget(pid, timeout))
        finally:
            os.close(read_end)
        if data is None:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if data is None:
        raise IsolationFailed(f"took longer than {timeout:.0f} s to analyse; skipped")
    if os.WIFSIGNALED(status):
        raise IsolationFailed(crash_message(os.WTERMSIG(status), memory))
    try:
        kind, value = pickle.loads(data)
    except Exception:  # noqa: BLE001 - a child that died mid-write
        raise IsolationFailed(f"the analysis process exited early (status {status}); skipped") from None
    if kind == "memory":
        raise IsolationFailed(memory_message(memory))
    if kind != "ok":
        raise IsolationFailed(value, raised=True)
    return value


class Helper:
    """`fn(*args)` started in a forked child while this process works on; `result()` is its
    (picklable) return value, or None when the child failed in any way, and the caller
    then does the work itself. For splitting one file's work over two cores, not for
    isolation: the child is killed if this process is interrupted, or dies. One at a time:
    `Helper.busy()` while one runs, and in the helper itself."""

    _running = 0  # helpers started by this process and not done; in a helper, 1 for good

    @classmethod
    def busy(cls) -> bool:
        return cls._running > 0

    def __init__(self, fn: Callable[..., Any], *args: Any):
        parent = os.getpid()
        self._read, write_end = os.pipe()
        held = _hold_signals()  # released by the child in become_disposable, by the parent below
        self.pid = os.fork()
        Helper._running += 1  # in the child too: it starts no helper of its own
        if self.pid == 0:  # pragma: no cover - runs in the child; result() is what tests check
            try:
                gc.disable()
                os.close(self._read)
                become_disposable(parent)
                silence_stderr()
                data = pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)
                view = memoryview(data)
                while view:
                    view = view[os.write(write_end, view):]
            finally:
                os._exit(0)  # a failure leaves the pipe short: result() reads None
        os.close(write_end)
        self._token = next(_tokens)
        _cleanups[self._token] = kill_process(self.pid)
        _release_signals(held)

    def result(self, timeout: float) -> Any:
        try:
            data = _read_all(self._read, Budget(self.pid, timeout))
        finally:
            self._close(kill=False)
        try:
            return pickle.loads(data) if data else None
        except Exception:  # noqa: BLE001 - a child that died mid-write
            return None

    def cancel(self) -> None:
        self._close(kill=True)

    def _close(self, kill: bool) -> None:
        if self._read < 0:
            return
        os.close(self._read)
        self._read = -1
        Helper._running -= 1
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover
                pass
        _reap(self.pid)
        _cleanups.pop(self._token, None)


# Clock ticks per second, the unit of /proc's CPU times.
try:
    _TICKS = os.sysconf("SC_CLK_TCK")
except (AttributeError, ValueError, OSError):  # pragma: no cover - no sysconf
    _TICKS = 100


def cpu_seconds(pid: int) -> Optional[float]:
    """The CPU time (user + system) process `pid` has used, where the system shows it
    (Linux's /proc); else None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, ValueError, IndexError):
        return None


# A process waiting for the CPU on a loaded machine has not used its time: the limit is on
# the CPU time it uses, and the wall clock only stops one that hangs without using any.
WALL_FACTOR = 4


class Budget:
    """How long a child may work on one task: `timeout` seconds of its own CPU time where
    the system shows it (a loaded machine slows the clock, not the work), and at most
    `WALL_FACTOR` times that by the wall clock; `timeout` by the wall clock elsewhere."""

    def __init__(self, pid: int, timeout: float):
        self.pid, self.timeout = pid, timeout
        self.wall_start = time.monotonic()
        self.cpu_start = cpu_seconds(pid)

    def spent(self) -> bool:
        wall = time.monotonic() - self.wall_start
        if self.cpu_start is None:
            return wall > self.timeout
        cpu = cpu_seconds(self.pid)
        if cpu is None:  # the process is gone: its pipe tells the rest
            return wall > self.timeout
        return cpu - self.cpu_start > self.timeout or wall > WALL_FACTOR * self.timeout


def _read_all(fd: int, budget: Budget) -> Optional[bytes]:
    """Everything until EOF, or None when the budget is spent first."""
    chunks = []
    while True:
        if budget.spent():
            return None
        ready, _, _ = select.select([fd], [], [], 0.25)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - libcst's errors can fail to print on deep trees
        return "(unprintable)"
