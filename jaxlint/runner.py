"""Linting many files: spread over worker processes, crash-, hang- and memory-proof.

libcst can crash the interpreter, run for seconds or take gigabytes on hostile
input that Python's parser accepts. Each file is linted in a forked worker, which
may grow by at most `settings.memory_limit` for it; a worker that dies, overruns
its time or its memory on one file costs only that file (a diagnostic), and a
fresh worker carries on with the rest. Results are returned in a stable order.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
from multiprocessing.connection import wait
from typing import Callable, Optional

from jaxlint import processes
from jaxlint.config import Settings
from jaxlint.finding import Diagnostic, FileResult

# A file that takes longer than this is abandoned with a diagnostic.
FILE_TIMEOUT = 30.0


def lint_file(path: str, settings: Settings) -> FileResult:
    # Imported on first use: a run answered entirely from the cache never loads libcst.
    from jaxlint.linter import lint_file as lint

    return lint(path, settings)


def _worker(conn, settings: Settings, parent: int) -> None:
    processes.become_disposable(parent)
    if settings.memory_limit is not None:
        processes.silence_stderr()
    while True:
        try:
            item = conn.recv()
        except EOFError:
            return
        if item is None:
            return
        index, path = item
        processes.cap_memory(settings.memory_limit)
        try:
            result = lint_file(path, settings)
        except MemoryError:
            result = FileResult(path, diagnostics=[Diagnostic(path, processes.memory_message(settings.memory_limit))])
        except Exception as exc:  # never a traceback for the user
            result = FileResult(path, diagnostics=[Diagnostic(
                path, f"internal error: {type(exc).__name__}: {processes.safe_str(exc)}; please report it",
                code="JAX000")])
        conn.send((index, result))


class _Worker:
    def __init__(self, ctx, settings: Settings):
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, settings, os.getpid()), daemon=True)
        # Frozen, the objects this process has made are never walked by the worker's
        # collector, which would copy every page they lie on into the worker.
        gc.freeze()
        try:
            with processes.signals_held():
                self.proc.start()
        finally:
            gc.unfreeze()
        child.close()
        self.conn = parent
        self.task: Optional[tuple[int, str]] = None
        self.budget: Optional[processes.Budget] = None

    def send(self, task, timeout: float) -> None:
        self.task = task
        self.budget = processes.Budget(self.proc.pid, timeout)
        self.conn.send(task)

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, BrokenPipeError):
            pass
        self.proc.join(0.5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()


def _size(task: tuple[int, str]) -> int:
    try:
        return os.stat(task[1]).st_size
    except OSError:
        return 0


def default_jobs(n_files: int) -> int:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    # Forking costs a few ms; one worker is enough for a handful of files.
    return max(1, min(cpus, n_files // 4 or 1))


def lint_paths(paths: list[str], settings: Settings, jobs: Optional[int] = None,
               timeout: float = FILE_TIMEOUT,
               lint_one: Optional[Callable[[str], Optional[FileResult]]] = None) -> list[FileResult]:
    """Lint every path; the result list is in the same order as `paths`.

    `lint_one` may answer a path without a worker (the cache); None means "lint it".
    """
    results: list[Optional[FileResult]] = [None] * len(paths)
    todo = []
    for i, p in enumerate(paths):
        cached = lint_one(p) if lint_one is not None else None
        if cached is not None:
            results[i] = cached
        else:
            todo.append((i, p))
    if not todo:
        return results  # type: ignore[return-value]
    from jaxlint.rules import all_rules

    all_rules()  # import every rule once, before the workers fork
    jobs = jobs or default_jobs(len(todo))
    try:
        ctx = mp.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        ctx = mp.get_context()
    workers: list[_Worker] = []

    def kill_all() -> None:  # on SIGINT / SIGTERM: no worker outlives the run
        for w in workers:
            if w.proc.pid is not None:
                w.proc.kill()  # _serve's `finally` reaps it as the exception unwinds

    with processes.cleanup(kill_all):
        _serve(workers, ctx, settings, todo, results, timeout, jobs)
    return results  # type: ignore[return-value]


def _serve(workers: list[_Worker], ctx, settings: Settings, todo: list[tuple[int, str]],
           results: list[Optional[FileResult]], timeout: float, jobs: int) -> None:
    workers.extend(_Worker(ctx, settings) for _ in range(min(jobs, len(todo))))
    # Largest files first: one big file handed out last would leave the other cores idle
    # while it runs. (Results go back to their places, so the order is not seen.)
    queue = sorted(todo, key=_size)
    busy: dict[object, _Worker] = {}

    def feed(w: _Worker) -> None:
        if queue:
            w.send(queue.pop(), timeout)
            busy[w.conn] = w

    def replace(w: _Worker, message: str) -> None:
        """A worker died or overran on its file: report that file, carry on with a fresh one."""
        index, path = w.task
        w.kill()
        results[index] = FileResult(path, diagnostics=[Diagnostic(path, message)])
        workers.remove(w)
        fresh = _Worker(ctx, settings)
        workers.append(fresh)
        feed(fresh)

    for w in workers:
        feed(w)
    try:
        while busy:
            ready = wait(list(busy), timeout=1.0)
            for conn in ready:
                w = busy.pop(conn)
                try:
                    index, result = conn.recv()
                    results[index] = result
                    feed(w)
                except (EOFError, OSError):
                    # The worker died on this file (e.g. libcst crashed the interpreter).
                    w.proc.join(1.0)
                    code = w.proc.exitcode
                    replace(w, processes.crash_message(-code, settings.memory_limit) if code is not None and code < 0
                            else f"the parser crashed on this file (exit code {code}); skipped")
            for conn, w in list(busy.items()):
                if w.budget.spent():
                    busy.pop(conn)
                    replace(w, f"took longer than {timeout:.0f} s to analyse; skipped")
    finally:
        for w in workers:
            w.stop()
