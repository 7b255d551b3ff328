"""Code that runs once per trace, not once per call: a print at trace time (JAX101), a Python
loop unrolled into the program (JAX407)."""

from __future__ import annotations

import contextlib
import io
import sys
import dataclasses
from typing import ClassVar

import jax

from jaxlint.confirm.target import code_key
from jaxlint.jax_api import (UNROLLED_LOOP_ITERATIONS, UNROLLED_LOOP_MIN_ITERATIONS,
                             UNROLLED_LOOP_OPERATIONS)
from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, TRACER,
                                           Evidence, Job, Verdict, concrete_runs, first_line,
                                           verdict)


@dataclasses.dataclass
class PrintEvidence(Evidence):
    """How often the flagged line ran and wrote, in jitted calls and in calls without jit."""

    kind: ClassVar[str] = "trace-time-print"
    line: int = 0
    jit_runs: int = 0
    eager_runs: int = 0
    calls: int = 0
    output: str = ""


class _LineStream(io.StringIO):
    """Captures output, keeping apart what the flagged lines of the target function wrote."""

    def __init__(self, job: Job):
        super().__init__()
        self.job = job
        self.here: list[str] = []

    def write(self, text):
        frame = sys._getframe(1)
        for _ in range(40):
            if frame is None:
                break
            if code_key(frame.f_code) == self.job.key \
                    and self.job.line <= frame.f_lineno <= self.job.end_line:
                self.here.append(text)
                break
            frame = frame.f_back
        return super().write(text)


def _printed_tracers(job: Job):
    """The program's own run at import: the flagged print ran with a tracer among the names
    it prints (`print(sample)` in a vmapped function prints `VmapTracer(...)`, not the samples)."""
    from jaxlint.confirm.verdicts.probe import job_probe

    probe = job_probe(job)
    printed = _printed_names(job)
    for hit in probe.hits if probe is not None else ():
        for name, value in hit.before.items():
            if name not in printed:
                continue
            try:
                leaves = jax.tree_util.tree_leaves(value)
            except Exception:  # noqa: BLE001 - an odd object: not a tracer
                continue
            tracer = next((x for x in leaves if _hides_values(x)), None)
            if tracer is not None:
                return len(probe.hits), name, tracer
    return None


def _hides_values(value) -> bool:
    """A tracer whose printed form holds no values. Under `grad` or `jvp` alone the tracer
    carries its concrete primal and prints it (`GradTracer(primal=1.0, ...)`) on every call:
    the values are shown, as the page's fine example says; under jit or vmap they are not."""
    while isinstance(value, jax.core.Tracer) and hasattr(value, "primal") and hasattr(value, "tangent"):
        value = value.primal
    return isinstance(value, jax.core.Tracer)


def _printed_names(job: Job) -> set[str]:
    """Names whose values the flagged `print` writes as they are: `print(x)`, `print(f"{x}")`;
    not `x` in `print(x.shape)`, which prints a concrete shape."""
    import ast

    from jaxlint.confirm.verdicts.probe import statement

    stmt = statement(job.path, job.line)
    out: set[str] = set()
    for call in ast.walk(stmt) if stmt is not None else ():
        # Python's own print writes what it gets; jax.debug.print formats values on every
        # call, and a logger may write nothing at all (no handler at that level).
        if not isinstance(call, ast.Call) or not (isinstance(call.func, ast.Name)
                                                  and call.func.id == "print"):
            continue
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            parts = [v.value for v in arg.values if isinstance(v, ast.FormattedValue)] \
                if isinstance(arg, ast.JoinedStr) else [arg]
            out |= {p.id for p in parts if isinstance(p, ast.Name)}
    return out


def confirm_print(job: Job) -> Verdict:
    """The flagged statement runs once per trace: the program's own run printed a tracer, or
    count how often its line runs in jitted calls against the same calls under
    jax.disable_jit(), and show what it wrote. Never more calls than the program made (at most
    3): a program that calls the function once never sees a second call print nothing, so one
    call confirms only a line that printed a tracer."""
    from jaxlint.confirm.verdicts.jit_watch import program_calls

    seen = _printed_tracers(job)
    if seen is not None:
        runs, name, tracer = seen
        text = " ".join(repr(tracer).split())[:120]
        return verdict(CONFIRMED, f"the program printed a tracer at line {job.line}",
                       PrintEvidence(line=job.line, jit_runs=runs, output=text, note=(
                           f"while the module ran, line {job.line} ran {runs} time(s) with "
                           f"`{name}` = {text}: it prints the tracer, not the values")))
    entry = job.entry()
    fplan = job.fplan(entry)
    if fplan.get("abstract") and fplan.get("cached") is False and not entry.jitted:
        return _print_uncached(job, entry, fplan)
    made = program_calls(job.state, entry.code)
    calls = max(1, min(3, made))

    def body(job, a, jitted, eager):
        jax.clear_caches()  # the trace cache spans jit wrappers: a cached trace prints nothing
        out, err = _LineStream(job), _LineStream(job)
        with job.watch() as w, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            for _ in range(calls):
                jax.block_until_ready(jitted(*a.args, **a.kwargs))
            jax.effects_barrier()
        n_jit = job.ran_line(w)
        if not n_jit:
            return None
        e_out, e_err = _LineStream(job), _LineStream(job)
        with job.watch() as w_eager, jax.disable_jit(), \
                contextlib.redirect_stdout(e_out), contextlib.redirect_stderr(e_err):
            for _ in range(calls):
                eager(*a.args, **a.kwargs)
        n_eager = job.ran_line(w_eager)
        written = "".join(out.here + err.here).strip().splitlines()
        # Output of the line itself, and of everything: a staged effect (jax.debug.print) runs
        # its line once but prints on every call, from the runtime rather than from the line.
        here_jit, here_eager = len(written), len("".join(e_out.here + e_err.here).strip().splitlines())
        total_jit = len((out.getvalue() + err.getvalue()).strip().splitlines())
        total_eager = len((e_out.getvalue() + e_err.getvalue()).strip().splitlines())
        shown = f"; it wrote {written[0][:120]!r}" if written else \
            "; it wrote nothing to stdout/stderr"
        tracer = bool(written) and bool(TRACER.search(written[0]))
        counts = f"line {job.line} ran {n_jit} time(s) in {calls} jitted call(s), {n_eager} " \
                 f"without jit{shown}{' (a tracer, not a value)' if tracer else ''}; the " \
                 f"program called it {made} time(s)"
        if not here_eager and not here_jit:
            # A line that writes nothing runs once per trace too: that is not this pitfall.
            return verdict(NOT_REPRODUCED, f"line {job.line} wrote nothing", counts)
        counts += f"; output lines: {total_jit} under jit, {total_eager} without"
        once = here_jit < here_eager and total_eager - total_jit >= here_eager - here_jit
        record = PrintEvidence(line=job.line, jit_runs=n_jit, eager_runs=n_eager, calls=calls,
                               output=written[0][:120] if written else "", note=counts)
        if once:
            times = "once" if n_jit == 1 else f"{n_jit} times"
            return verdict(CONFIRMED, f"ran {times} in {calls} calls", record)
        if calls == 1 and tracer:
            return verdict(CONFIRMED, "printed a tracer, not a value", record)
        if calls == 1 and here_jit:  # a print of its own, once in the one call: nothing skipped yet
            return verdict(NOT_REPRODUCED, f"the program called it {made} time(s): one call "
                                           f"cannot show a print skipped", record)
        return verdict(NOT_REPRODUCED, f"ran on every call ({n_jit} times in {calls} call(s), "
                                       f"{total_jit} output line(s) under jit, {total_eager} "
                                       f"without)", record)

    return concrete_runs(job, body)


def _print_uncached(job: Job, entry, fplan: dict) -> Verdict:
    """A function the program only vmaps: no trace cache, so the print runs on every call, and
    a jitted run (once in N calls) is not what the program does. One call under jax.vmap, its
    traced arguments mapped over a batch of two, its others as they are: a print of a traced
    value writes a tracer."""
    import functools
    import inspect

    import jax.numpy as jnp

    sig, is_method, static, _, eager = job.callables(entry)
    traced = set(fplan.get("traced") or ())
    names = list(inspect.signature(eager).parameters)
    last = None
    for a in job.args_list(entry, sig, is_method, static, concrete=True):
        if traced & set(a.kwargs):
            continue  # vmap maps keyword arguments over axis 0 always: not how it was called
        axes = tuple(0 if i < len(names) and names[i] in traced and hasattr(v, "shape") else None
                     for i, v in enumerate(a.args))
        args = [jnp.stack([v, v]) if ax == 0 else v for v, ax in zip(a.args, axes)]
        out, err = _LineStream(job), _LineStream(job)
        with job.watch() as w, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                jax.vmap(functools.partial(eager, **a.kwargs), in_axes=axes)(*args)
            except Exception as exc:  # noqa: BLE001 - the runs so far still count
                last = (exc, a.shapes)
        runs = job.ran_line(w)
        if not runs:
            continue
        written = "".join(out.here + err.here).strip().splitlines()
        note = f"the program only vmaps {entry.code.co_name} (vmap keeps no trace cache: the " \
               f"line runs on every call); one call under jax.vmap: line {job.line} ran " \
               f"{runs} time(s) and wrote {written[0][:120]!r}" if written else \
               f"one call under jax.vmap: line {job.line} ran {runs} time(s), wrote nothing"
        record = PrintEvidence(line=job.line, jit_runs=runs, calls=1,
                               output=written[0][:120] if written else "", note=note)
        if written and TRACER.search(written[0]):
            return verdict(CONFIRMED, "printed a tracer, not a value (under vmap, as the "
                                      "program calls it)", record, a.shapes)
        return verdict(NOT_REPRODUCED, "under vmap the line runs on every call and printed "
                                       "no tracer", record, a.shapes)
    if last is not None:
        return verdict(COULD_NOT_RUN, f"the function raised {type(last[0]).__name__}",
                       f"{first_line(last[0])} (with {last[1]})", last[1])
    return verdict(COULD_NOT_RUN, f"line {job.line} never ran")


@dataclasses.dataclass
class UnrollEvidence(Evidence):
    kind: ClassVar[str] = "unrolled-loop"
    line: int = 0
    iterations: int = 0  # runs of the loop header in one trace
    traces: int = 0
    equations: int = -1  # jaxpr equations the loop staged in one trace (nested ones counted); -1: not read

    def text(self) -> str:
        staged = f", staging {self.equations} jaxpr equations" if self.equations >= 0 else ""
        return f"line {self.line} ran {self.iterations} times while the function was traced " \
               f"{self.traces} time(s){staged}: each iteration is staged into the program"


def confirm_unrolled(job: Job) -> Verdict:
    """JAX407, by the rule's own thresholds (jaxlint.jax_api): the loop header ran
    UNROLLED_LOOP_ITERATIONS+ times within one trace of the program's function, or
    UNROLLED_LOOP_MIN_ITERATIONS+ times staging UNROLLED_LOOP_OPERATIONS+ jaxpr equations."""
    if job.key is None:
        return verdict(COULD_NOT_RUN, "the loop is not in a function")
    watch = job.state["import_watch"]
    runs = watch.ran(job.line, job.line, job.key)
    name = (job.f.get("function") or "").rsplit(".", 1)[-1]
    traces = sum(n for fn, n in job.state["compiles"].items() if str(fn)[4:-1] == name)
    equations = -1
    if not runs or UNROLLED_LOOP_MIN_ITERATIONS <= runs // max(1, traces) <= UNROLLED_LOOP_ITERATIONS:
        # The loop's size in equations: one abstract trace with the arguments the program
        # passes (its own calls first), which stages what the program's trace staged.
        traced = _trace_loop(job)
        if traced is not None and (not runs or traced[0] == runs // max(1, traces)):
            # Only a trace that ran the loop as often as the program's did is its trace.
            runs, traces, equations = traced
    if not runs:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran")
    per_trace = runs // max(1, traces)
    record = UnrollEvidence(line=job.line, iterations=per_trace, traces=max(1, traces),
                            equations=equations)
    if per_trace > UNROLLED_LOOP_ITERATIONS:
        return verdict(CONFIRMED, f"the loop ran {per_trace} times in one trace", record)
    if per_trace > UNROLLED_LOOP_MIN_ITERATIONS and equations >= UNROLLED_LOOP_OPERATIONS:
        return verdict(CONFIRMED, f"the loop ran {per_trace} times in one trace, staging "
                                  f"{equations} equations", record)
    return verdict(NOT_REPRODUCED, f"the loop ran {per_trace} times per trace" + (
        f", staging {equations} equations" if equations >= 0 else ""), record)


def _trace_loop(job: Job):
    """(header runs, 1, equations the loop staged) from one trace of the flagged function, or
    None when it cannot be traced."""
    from jaxlint.confirm.verdicts.probe import statement

    loop = statement(job.path, job.line)
    last = getattr(loop, "end_lineno", None) or job.line
    entry = job.entry()
    sig, is_method, static, jitted, _ = job.callables(entry)
    for a in job.args_list(entry, sig, is_method, static, concrete=False):
        jax.clear_caches()
        traced = None
        with job.watch() as w:
            try:
                traced = jitted.trace(*a.args, **a.kwargs)
            except Exception:  # noqa: BLE001 - the runs so far still count
                pass
        runs = job.ran_line(w)
        if runs:
            job.shapes_used = a.shapes
            jaxpr = getattr(getattr(traced, "jaxpr", None), "jaxpr", None)
            staged = _equations(jaxpr, job.path, range(job.line, last + 1)) if jaxpr is not None else -1
            return runs, 1, staged
    return None


def _equations(jaxpr, path: str, lines: range, inside: bool = False) -> int:
    """The equations staged from `lines` of `path` (a user frame there), counted through nested
    jaxprs (a jitted helper, a draw, a cond's branches: all staged by the line that called them)."""
    from jax._src import source_info_util

    total = 0
    for eqn in jaxpr.eqns:
        here = inside
        if not here:
            try:
                frames = source_info_util.user_frames(eqn.source_info.traceback) \
                    if eqn.source_info.traceback is not None else []
                here = any(f.file_name == path and f.start_line in lines for f in frames)
            except Exception:  # noqa: BLE001 - a jax without this private API: count none
                here = False
        total += here
        for value in eqn.params.values():
            for sub in value if isinstance(value, (tuple, list)) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    total += _equations(inner, path, lines, here)
    return total
