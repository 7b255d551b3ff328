"""Confirm mode: run flagged code under real JAX and say whether the pitfall happens.

The parent process never imports jax. It plans each finding from the static model
(jaxlint.confirm.plan), then feeds the files to a worker process (jaxlint.confirm.worker)
that imports jax once and confirms each file in a fork of itself, so every file starts from
the same clean interpreter. A file that hangs or crashes gets "could not run"; the next file
runs in a fresh fork.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from typing import Any, Optional

from jaxlint import processes
from jaxlint.confirm import examples, sources
from jaxlint.finding import Finding

INSTALL_HINT = "confirm mode needs jax: pip install 'jaxlint[confirm]'"
# Importing jax takes about a second; a cold start on a loaded machine can take far longer.
_START_TIMEOUT = 120.0
_POLL = 0.01
# Seconds past a file's timeout before the worker itself is taken for hung.
_GRACE = 10.0


class ConfirmUnavailable(Exception):
    """jax is not importable; the message says how to install it."""


WARNING = ("jaxlint: warning: --confirm imports the flagged files and runs their code "
           "(module-level code included; `if __name__ == \"__main__\":` blocks excepted)")


def confirm_findings(findings: list[Finding], *, device: str = "auto", timeout: float = 30.0,
                     texts: Optional[dict[str, str]] = None) -> tuple[list[Finding], str]:
    """The same findings with a `verdict` each, and the device the worker used.

    `texts` gives the code to run for paths that are not (or not as linted) on disk: the
    text read from stdin, keyed by the name it was linted under; for a `.ipynb` name, the
    notebook's JSON (an editor's unsaved notebook)."""
    if importlib.util.find_spec("jax") is None:
        raise ConfirmUnavailable(INSTALL_HINT)
    if not findings:
        return [], ""
    by_path: dict[str, list[int]] = defaultdict(list)
    for i, f in enumerate(findings):
        by_path[f.path].append(i)
    jobs, cells = [], []
    for path, idxs in by_path.items():
        job, where = _job(path, [findings[i] for i in idxs], (texts or {}).get(path))
        jobs.append(job)
        cells.append(where)
    results, device_name = _run_jobs(jobs, device, timeout)
    out = list(findings)
    for (path, idxs), file_results, where in zip(by_path.items(), results, cells):
        for i, verdict in zip(idxs, file_results):
            verdict.setdefault("device", device_name)
            verdict.setdefault("shapes", "")
            if where is not None and findings[i].cell is not None:
                verdict = sources.cite_cells(verdict, findings[i].cell, where)
            out[i] = dataclasses.replace(findings[i], verdict=verdict)
    return out, device_name


def _job(path: str, findings: list[Finding], text: Optional[str]):
    """The worker's job for one file, and for a notebook the module line -> cell map."""
    from jaxlint.confirm.plan import file_plans

    job: dict[str, Any] = {"path": os.path.abspath(path), "findings": []}
    where = None
    run_findings = findings
    if path.endswith(".ipynb"):
        try:
            text, where = sources.notebook_module(path, text)
        except ValueError as exc:
            for f in findings:
                job["findings"].append(_finding(f, {}, f"cannot read the notebook: {exc}"))
            return job, None
        job["source"] = text
        job["cells"] = sources.cell_spans(where)
        run_findings = [sources.to_module_lines(f, where) for f in findings]
    elif (script := sources.cell_script(path, text)) is not None:
        # A cell script: its cells' Python at the file's lines, run a cell at a time.
        text, job["cells"] = script
        job["source"] = text
    elif text is not None:
        job["source"] = text
    root, modname = _package(path)
    if root is not None and text is None:
        job.update(package_root=root, modname=modname)
    job["examples"] = examples.for_module(path, modname or os.path.splitext(os.path.basename(path))[0])
    plan_error = None
    try:
        plans = file_plans(path, run_findings, text=text)
    except Exception as exc:  # noqa: BLE001 - reported per finding, never swallowed
        plans, plan_error = {}, f"{type(exc).__name__}: {exc}"
    for i, f in enumerate(run_findings):
        job["findings"].append(_finding(f, plans.get(i, {}), plan_error))
    return job, where


def _finding(f: Finding, plan: dict, plan_error: Optional[str]) -> dict[str, Any]:
    from jaxlint.rules import all_rules

    confirm = dict(f.confirm)
    rule = all_rules().get(f.code)
    if rule is not None and getattr(rule, "also_raises", None):
        confirm.setdefault("also_raises", list(rule.also_raises))
    out = {"line": f.line, "end_line": f.end_line, "code": f.code, "function": f.function,
           "function_line": f.function_line, "confirm": confirm, "plan": plan}
    if plan_error:
        out["plan_error"] = plan_error
    return out


def _package(path: str) -> tuple[Optional[str], Optional[str]]:
    """For a module inside a package: the folder to put on sys.path, and its dotted name."""
    path = os.path.abspath(path)
    folder, name = os.path.split(path)
    parts = [os.path.splitext(name)[0]]
    if parts[0] == "__init__":
        parts = []
    if not os.path.isfile(os.path.join(folder, "__init__.py")):
        return None, None
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, pkg = os.path.split(folder)
        parts.insert(0, pkg)
    if not all(p.isidentifier() for p in parts):
        return None, None
    return folder, ".".join(parts)


# The worker imports this very jaxlint (not one that the user's cwd might hold), and keeps the
# cwd on sys.path after it, as `python -m` would.
_HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_WORKER_MAIN = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
                "from jaxlint.confirm.worker import main; sys.exit(main(sys.argv[1:]))")


def _child_env(device: str) -> dict[str, str]:
    env = dict(os.environ)
    if device == "cpu":
        env["JAX_PLATFORMS"] = "cpu"
    env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = here + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env["JAXLINT_CONFIRM_PARENT"] = str(os.getpid())  # the worker dies with this process
    return env


def _could_not_run(n: int, summary: str, evidence: str = "") -> list[dict[str, Any]]:
    return [{"verdict": "could not run", "summary": summary, "evidence": evidence}
            for _ in range(n)]


def _run_jobs(jobs: list[dict], device: str, timeout: float) -> tuple[list[list[dict]], str]:
    results: list[Optional[list[dict]]] = [None] * len(jobs)
    device_name = ""
    with tempfile.TemporaryDirectory(prefix="jaxlint-confirm-") as workdir:
        with open(os.path.join(workdir, "jobs.json"), "w", encoding="utf-8") as fh:
            json.dump({"jobs": jobs, "timeout": timeout, "compile_budget": 20}, fh)
        env = _child_env(device)
        index = 0
        while index < len(jobs):
            log_path = os.path.join(workdir, f"worker-{index}.log")
            with open(log_path, "wb") as log:
                proc = subprocess.Popen(
                    [sys.executable, "-c", _WORKER_MAIN, _HERE, workdir, str(index)],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                    env=env, start_new_session=True)
            # The worker has its own session, so Ctrl-C does not reach it: on SIGINT /
            # SIGTERM the parent kills its process group and removes the folder.
            stop = _stop_all(proc.pid, workdir)
            try:
                with processes.cleanup(processes.remove_tree(workdir)), \
                        processes.cleanup(stop):  # runs first
                    index, device_name = _serve(proc, workdir, index, jobs, results, timeout,
                                                log_path, device_name)
            except BaseException:
                # A closed pipe, an error, a signal outside handling_signals: no worker stays.
                stop()
                raise
    return [r if r is not None else _could_not_run(len(j["findings"]), "no result")
            for r, j in zip(results, jobs)], device_name


def _stop_all(pid: int, workdir: str):
    """Kill the worker's process group, and the group of each fork it made (a fork has its
    own, so that a hang is killed with its children)."""
    kill_worker = processes.kill_process_group(pid)

    def stop() -> None:
        forks = []
        try:
            names = os.listdir(workdir)
        except OSError:
            names = []
        for name in names:
            if name.endswith(".json.pid"):
                try:
                    with open(os.path.join(workdir, name), encoding="utf-8") as fh:
                        forks.append(json.load(fh)["pid"])
                except (OSError, ValueError, KeyError):
                    continue
        for fork in forks:
            try:
                os.killpg(fork, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        kill_worker()

    return stop


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return "unknown"


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            text = fh.read()[-2000:].decode("utf-8", "replace").strip()
    except OSError:
        return ""
    lines = text.splitlines()
    return lines[-1] if lines else ""


def _serve(proc, workdir, index, jobs, results, timeout, log_path, device_name):
    """Collect results from one worker; returns the next index to start a worker at."""
    start = index
    ready = os.path.join(workdir, f"ready-{start}.json")
    failed = os.path.join(workdir, f"failed-{start}.json")
    deadline = time.monotonic() + _START_TIMEOUT
    while not os.path.exists(ready):
        if os.path.exists(failed) or proc.poll() is not None or time.monotonic() > deadline:
            reason = "jax failed to start in the worker"
            if os.path.exists(failed):
                with open(failed, encoding="utf-8") as fh:
                    reason += ": " + json.load(fh)["error"]
            elif proc.poll() is None:
                reason = f"jax did not start within {_START_TIMEOUT:.0f} s"
            else:
                reason += f" (exit code {proc.returncode}): {_tail(log_path)}"
            _kill(proc)
            for i in range(index, len(jobs)):  # a fresh worker would fail the same way
                results[i] = _could_not_run(len(jobs[i]["findings"]), "jax failed to start", reason)
            return len(jobs), device_name
        time.sleep(_POLL)
    with open(ready, encoding="utf-8") as fh:
        device_name = json.load(fh)["device"]
    job_deadline = None
    while index < len(jobs):
        result = os.path.join(workdir, f"result-{index}.json")
        if os.path.exists(result):
            with open(result, encoding="utf-8") as fh:
                results[index] = json.load(fh)["results"]
            index += 1
            job_deadline = None
            continue
        if job_deadline is None and os.path.exists(os.path.join(workdir, f"start-{index}")):
            # The worker kills a file's fork after `timeout`; this is for a worker that hangs.
            job_deadline = time.monotonic() + timeout + _GRACE
        if proc.poll() is not None:
            if os.path.exists(result):
                continue
            code = proc.returncode
            how = f"was killed by signal {-code} ({_signal_name(-code)})" if code < 0 \
                else f"exited with code {code}"
            results[index] = _could_not_run(
                len(jobs[index]["findings"]), f"the interpreter {how}",
                f"the worker {how} while importing or running {jobs[index]['path']}; "
                f"last output: {_tail(log_path)!r}")
            return index + 1, device_name
        if job_deadline is not None and time.monotonic() > job_deadline:
            _kill(proc)
            results[index] = _could_not_run(
                len(jobs[index]["findings"]), f"timed out after {timeout:g} s",
                f"importing or running {jobs[index]['path']} took over {timeout:g} s; "
                f"the worker was killed")
            return index + 1, device_name
        time.sleep(_POLL)
    proc.wait()
    return index, device_name
