"""Timings (JAX401, JAX601, JAX602), measured on the program's own run of the flagged line
(jaxlint.confirm.verdicts.probe): how often it ran, how long each run took, and whether JAX work
was still in flight when it ran. Nothing is re-run or re-timed with other code."""

from __future__ import annotations

import dataclasses
import linecache
import re
from typing import ClassVar, Optional

import jax

from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, Evidence,
                                           Job, Verdict, verdict)
from jaxlint.confirm.verdicts.probe import MISSING, Hit, job_probe, probe_hits
from jaxlint.notebook import TIMED_MARKER


@dataclasses.dataclass
class TimingEvidence(Evidence):
    kind: ClassVar[str] = "timing"
    line: int = 0
    runs: int = 0
    median_us: float = 0.0
    in_flight: str = ""  # names holding JAX work still computing when the line ran
    missed_us: float = 0.0  # how long that work still took once the line was done
    compiles: int = -1

    def text(self) -> str:
        parts = [f"line {self.line} ran {self.runs} time(s) in the program's own run, "
                 f"{self.median_us:.0f} us median"]
        if self.in_flight:
            parts.append(f"when it ran, {self.in_flight} was still computing; that work took "
                         f"{self.missed_us:.0f} us more")
        if self.compiles >= 0:
            parts.append(f"{self.compiles} compile(s) at the line")
        if self.note:
            parts.append(self.note)
        return "; ".join(parts)


def _median(values: list[float]) -> float:
    values = sorted(values)
    return values[len(values) // 2] if values else 0.0


def _record(job: Job, hits: list[Hit]) -> TimingEvidence:
    flight = [h for h in hits if h.unready]
    return TimingEvidence(line=job.line, runs=len(hits),
                          median_us=_median([h.seconds for h in hits]) * 1e6,
                          in_flight=", ".join(flight[0].unready[:3]) if flight else "",
                          missed_us=_median([h.wait for h in flight]) * 1e6 if flight else 0.0)


_CLOCKS = re.compile(r"\b(time|time_ns|perf_counter|perf_counter_ns|monotonic|monotonic_ns|"
                     r"process_time|timeit|now|default_timer)\s*\(")
# Timers that call a function themselves and read the clock when it returns.
_CALLING_TIMERS = re.compile(r"\btimeit\.(timeit|repeat)\s*\(\s*lambda\b")
_HOST = re.compile(r"\b(float|int|bool|print|str|repr)\s*\(|\.(item|tolist)\s*\(|"
                   r"\b(np|numpy|onp)\.(asarray|array)\s*\(|\{[^}]*\}")


def _source(job: Job) -> str:
    return "".join(linecache.getline(job.path, n) for n in range(job.line, job.end_line + 1))


def confirm_timing(job: Job) -> Verdict:
    """JAX601: the clock was read while the timed JAX work was still computing."""
    magic = re.search(re.escape(TIMED_MARKER) + r"(\w+)", _source(job))
    if magic:
        return _timed_by_magic(job, magic.group(1))
    if _CALLING_TIMERS.search(_source(job)):
        return _timed_lambda(job)
    if not _CLOCKS.search(_source(job)):
        return verdict(NOT_REPRODUCED, f"line {job.line} reads no clock",
                       TimingEvidence(line=job.line, note="the line calls no timer"))
    # Runs of the line in its own function, not in a lambda written on it (`timeit(lambda:
    # f(x))`: the lambda's frame starts at the line too).
    own = (job.f.get("function") or "<module>").rsplit(".", 1)[-1]
    hits = [h for h in probe_hits(job) if h.frame_name == own]
    if not hits:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran",
                       "the program did not run the timed code at import (a `__main__` block "
                       "does not run)")
    record = _record(job, hits)
    if record.in_flight:
        return verdict(CONFIRMED, f"the clock stopped with {record.in_flight} still computing",
                       record)
    return verdict(NOT_REPRODUCED, "all JAX work was done when the clock was read", record)


def _timed_lambda(job: Job) -> Verdict:
    """`timeit.repeat(lambda: f(x), ...)`: timeit reads the clock as soon as the lambda returns.
    Confirmed when the lambda, as the program ran it, returned a jax array still computing."""
    hits = [h for h in probe_hits(job) if h.frame_name == "<lambda>"]
    if not hits:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran",
                       "the program did not call the timed lambda at import (a `__main__` block "
                       "does not run)")
    record = TimingEvidence(line=job.line, runs=len(hits),
                            median_us=_median([h.seconds for h in hits]) * 1e6)
    flight = [h for h in hits if "its result" in h.unready_after]
    if flight:
        record.note = f"the timed lambda returned a jax array still computing in {len(flight)} " \
                      f"of {len(hits)} calls; timeit reads the clock when it returns"
        return verdict(CONFIRMED, "timeit stopped the clock with the lambda's result still "
                                  "computing", record)
    record.note = "every result of the timed lambda was ready when it returned"
    return verdict(NOT_REPRODUCED, "the lambda's results were ready when timeit read the clock",
                   record)


def _timed_by_magic(job: Job, magic: str) -> Verdict:
    """`%time x = f(a)` in a notebook: IPython reads the clock as soon as the statement returns.
    Confirmed when a jax array the statement bound was still computing at that moment."""
    import ast

    from jaxlint.confirm.verdicts.probe import statement

    hits = probe_hits(job)
    if not hits:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran",
                       f"the notebook's cells did not reach the %{magic} statement")
    flight = [h for h in hits if h.unready_after]
    record = TimingEvidence(line=job.line, runs=len(hits),
                            median_us=_median([h.seconds for h in hits]) * 1e6)
    if flight:
        names = ", ".join(flight[0].unready_after[:3])
        record.note = f"%{magic} reads the clock when the statement returns, and {names} was " \
                      f"still computing then"
        return verdict(CONFIRMED, f"%{magic} stopped the clock with {names} still computing",
                       record)
    if isinstance(statement(job.path, job.line), ast.Expr):
        return verdict(COULD_NOT_RUN, f"the %{magic} statement keeps no value",
                       f"line {job.line} ran {len(hits)} time(s); its result is dropped, so "
                       f"whether it was still computing cannot be read without running it again")
    record.note = f"%{magic} reads the clock when the statement returns"
    return verdict(NOT_REPRODUCED, "its result was ready when the statement returned", record)


def confirm_host_sync(job: Job) -> Verdict:
    """JAX602: the line turned a JAX array into a host value on every iteration."""
    hits = probe_hits(job)
    if not hits:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran")
    record = _record(job, hits)
    text = _source(job)
    # The names the line converts on the host (float(loss), loss.item(), print(loss), f"{loss}").
    converted = set(re.findall(r"\w+", " ".join(m.group(0) + text[m.end():m.end() + 40]
                                                 for m in _HOST.finditer(text))))
    synced = [n for n in (job_probe(job).names if job_probe(job) else []) if n in converted
              and isinstance(hits[0].before.get(n, MISSING), jax.Array)
              and not isinstance(hits[0].before.get(n), jax.core.Tracer)]
    loop = _loop_runs(job)
    record.note = f"the enclosing loop ran {loop} iteration(s)" if loop else ""
    if len(hits) >= 2 and synced and (not loop or len(hits) >= loop):
        record.note = f"each run read the device array `{synced[0]}` on the host"
        return verdict(CONFIRMED, f"{len(hits)} host syncs of {synced[0]}, one per iteration", record)
    why = "the line ran once" if len(hits) < 2 else "it read no device array"
    return verdict(NOT_REPRODUCED, why, record)


def _loop_runs(job: Job) -> int:
    """Iterations of the innermost loop around the flagged line (its header's runs - 1)."""
    import ast

    try:
        tree = ast.parse("".join(linecache.getlines(job.path)))
    except (SyntaxError, ValueError):
        return 0
    loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))
             and n.body[0].lineno <= job.line <= (n.end_lineno or n.lineno)]
    if not loops:
        return 0
    header = max(loops, key=lambda n: n.lineno).lineno
    runs = job.state["import_watch"].ran(header, header, job.key)
    return max(0, runs - 1)


# Runs of the line in one pass of its loop from which re-wrapping is a step loop's cost.
STEP_LOOP_RUNS = 10


def _runs_per_loop(job: Job) -> tuple[int, Optional[float]]:
    """(runs of the line, its runs per entry of the innermost loop around it); the loop's
    header runs once per iteration and once more per entry, when it finds the loop done."""
    import ast

    watch = job.state["import_watch"]
    runs = watch.ran(job.line, job.line, job.key)
    try:
        tree = ast.parse("".join(linecache.getlines(job.path)))
    except (SyntaxError, ValueError):
        return runs, None
    loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While))
             and n.body[0].lineno <= job.line <= (n.end_lineno or n.lineno)]
    if not loops or not runs:
        return runs, None
    header = max(loops, key=lambda n: n.lineno).lineno
    entries = watch.ran(header, header, job.key) - runs
    return runs, (runs / entries if entries > 0 else None)


def confirm_overhead(job: Job) -> Verdict:
    """JAX401: the line made a new jax.jit wrapper, and called it, again and again in the
    program's own loop; the time per run and the compiles there are measured (one compile is
    expected: the cost is the re-wrapping, not a recompile)."""
    from jaxlint.confirm.verdicts.compile_count import _made_in_run, misses_at

    made, how = _made_in_run(job)
    if not made:
        return verdict(COULD_NOT_RUN, f"no jax.jit(...) ran at line {job.line}", how or "")
    called = [m for m in made if m.calls]
    probe = job_probe(job)
    hits = probe.hits if probe is not None else []
    record = _record(job, hits) if hits else TimingEvidence(line=job.line, runs=len(made))
    record.compiles = len(misses_at(job, job.state.get("misses") or []))
    record.note = f"{len(made)} jax.jit wrappers made at the line ({how}), {len(called)} called"
    runs, per_entry = _runs_per_loop(job)
    if per_entry is not None:
        record.note += f"; the innermost loop ran the line {per_entry:.0f} time(s) per entry " \
                       f"({runs} run(s) in all)"
        if per_entry < STEP_LOOP_RUNS:
            # A short loop re-wraps a few times: the wrapper's cost (tens of us per call)
            # is not what the rule claims, the cost of a step loop run many times.
            return verdict(NOT_REPRODUCED, f"the loop around line {job.line} ran it "
                                           f"{per_entry:.0f} time(s) per entry, not a step "
                                           f"loop's {STEP_LOOP_RUNS}+", record)
    if len(called) >= 2:
        return verdict(CONFIRMED, f"jax.jit(...) made and called {len(called)} times at line "
                                  f"{job.line}", record)
    return verdict(NOT_REPRODUCED, f"{len(called)} wrapper(s) called", record)
