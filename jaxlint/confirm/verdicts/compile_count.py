"""Recompilation (JAX402-JAX405): the compiles of the flagged call while the program's own code runs."""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import sys
import dataclasses
from collections import Counter
from typing import Any, ClassVar, Optional

import jax
import numpy as np

from jaxlint.confirm.target import LineWatch
from jaxlint.confirm.verdicts import jit_watch
from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, CompileBudget,
                                           Evidence, Job, Verdict, first_line, verdict)


@dataclasses.dataclass
class CompileEvidence(Evidence):
    """Compiles of the flagged call counted while the program ran."""

    kind: ClassVar[str] = "compile-count"
    compiles: int = 0
    calls: int = 0
    how: str = ""  # "at import", "calling f once, ..."
    signatures: str = ""
    miss: str = ""  # JAX's explain-cache-miss record of the second compile

    def text(self) -> str:
        parts = [self.note or f"{self.compiles} compiles at the flagged line for {self.calls} "
                              f"calls ({self.how})"]
        if self.signatures:
            parts.append(self.signatures)
        if self.miss:
            parts.append(self.miss)
        return "; ".join(parts)


_MISS_AT = re.compile(r"TRACING CACHE MISS at (?P<file>.+?):(?P<line>\d+):\d+")
_MISSED_FN = re.compile(r"never seen function:\s+(\S+) id=|for (\S+) defined at")


def misses_at(job: Job, records: list[str]) -> list[str]:
    real = os.path.realpath(job.path)
    out = []
    want = re.fullmatch(r"\w+\((\w+)\)", str(job.confirm.get("fun_name") or ""))
    for rec in records:
        # The call site JAX names ("TRACING CACHE MISS at file:line") is the flagged line...
        m = _MISS_AT.search(rec)
        if not (m and os.path.realpath(m.group("file")) == real
                and job.line <= int(m.group("line")) <= job.end_line):
            continue
        # ...and the function that missed is the flagged jit's, when the rule names it.
        fn = _MISSED_FN.search(rec)
        if want and fn and fn.group(1) != want.group(1) and fn.group(2) != want.group(1):
            continue
        out.append(rec)
    return out


def compiled_at(job: Job, records: list[str], sites: list[tuple]) -> list[str]:
    """The compiles of the finding's function asked at the flagged line (the line on the stack
    when the compile event fired), for a function JAX logs no cache miss for: a jit a library
    makes for it (eqx.filter_jit's own cached jit lives in equinox's files, whose functions
    JAX's log leaves out). Where JAX logs misses for the function, those are the evidence."""
    want = re.fullmatch(r"\w+\((\w+)\)", str(job.confirm.get("fun_name") or ""))
    if want is None:
        return []
    name = want.group(1)
    for rec in records:
        fn = _MISSED_FN.search(rec)
        if fn and name in (fn.group(1), fn.group(2)):
            return []
    wrapper = str(job.confirm.get("fun_name")).split("(")[0]
    return [f"jit({name}) compiled with line {job.line} on the stack (compile {i}; JAX logs no "
            f"cache miss for a {wrapper} function, so the compile events are counted)"
            for i, (fn, lines) in enumerate(
                [s for s in sites if s[0] == f"jit({name})"
                 and any(job.line <= ln <= job.end_line for ln in s[1])], 1)]


def _exclude_from_source_info() -> None:
    """JAX names the first frame outside itself as a call site ("TRACING CACHE MISS at ...");
    the recorder's wrapper lives here, so skip this file and the user's line is named."""
    try:
        from jax._src import source_info_util

        source_info_util.register_exclusion(os.path.abspath(__file__))
    except Exception:  # noqa: BLE001 - private API; without it only the attribution suffers
        pass


_exclude_from_source_info()


def _short_repr(value) -> str:
    text = repr(value)
    if " object at 0x" in text:
        return f"<{type(value).__name__} @{id(value) & 0xffff:04x}>"
    return text if len(text) <= 40 else text[:37] + "..."


def _varying(signatures: list[list[str]]) -> list[str]:
    """The signatures, showing only the arguments that differ between them."""
    keep = [i for i in range(len(signatures[0]))
            if len({tuple(s[i:i + 1]) for s in signatures}) > 1] or range(len(signatures[0]))
    return [", ".join(s[i] for i in keep if i < len(s)) for s in signatures]


class _CallRecorder:
    """Wraps a module-level jitted function to record, per call from the flagged line, the
    signature JAX keys its cache on: static values, and shapes/dtypes of the rest."""

    def __init__(self, job: Job):
        self.job = job
        self.calls: list[tuple] = []
        self.name = None
        self.wrapped: dict[str, Any] = {}
        fun_name = str(job.confirm.get("fun_name") or "")
        m = re.fullmatch(r"\w+\((\w+)\)", fun_name)
        if m is None:
            return
        # `pool` decorated with jit, or `scale_jit = jax.jit(scale, ...)`: module-level jitted
        # objects of that function.
        for attr, value in list(vars(job.module).items()):
            if hasattr(value, "lower") and hasattr(value, "_jit_info") \
                    and getattr(value, "__name__", None) == m.group(1):
                self.wrapped[attr] = value
        if self.wrapped:
            self.name = m.group(1)

    def signature(self, fn, args, kwargs) -> tuple:
        info = fn._jit_info
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError:
            return ("?",)
        names = list(bound.signature.parameters)
        static = set(info.static_argnames) | {names[i] for i in info.static_argnums if i < len(names)}
        parts = []
        for k, v in bound.arguments.items():
            if k in static:
                parts.append(f"{k}={_short_repr(v)}")
                continue
            leaves, tree = jax.tree_util.tree_flatten(v)
            described = [f"{np.dtype(x.dtype).name}[{','.join(map(str, x.shape))}]"
                         if hasattr(x, "shape") and hasattr(x, "dtype") else type(x).__name__
                         for x in leaves]
            text = ",".join(described)
            parts.append(f"{k}: {text}" if tree.num_leaves == 1 and not tree.children()
                         else f"{k}: {tree}({text})")
        return tuple(parts)

    def __enter__(self):
        for attr, fn in self.wrapped.items():
            setattr(self.job.module, attr, self._recording(fn))
        return self

    def _recording(self, fn):
        job, real = self.job, os.path.realpath(self.job.path)

        def recorded(*args, **kwargs):
            frame = sys._getframe(1)
            if os.path.realpath(frame.f_code.co_filename) == real:
                pos = list(frame.f_code.co_positions())[frame.f_lasti // 2]
                first, last = pos[0] or frame.f_lineno, pos[1] or frame.f_lineno
                if first <= job.line and job.end_line <= last:
                    self.calls.append(self.signature(fn, args, kwargs))
            return fn(*args, **kwargs)

        return recorded

    def __exit__(self, *exc):
        for attr, fn in self.wrapped.items():
            setattr(self.job.module, attr, fn)
        return False


def confirm(job: Job) -> Verdict:
    """Count trace-cache misses attributed to the flagged line while the code runs as written,
    and the distinct cache keys (argument signatures) the call at the line used."""
    state = job.state
    records = list(state["import_misses"])
    sites = list(state.get("import_sites") or ())
    ran = state["import_watch"].ran(job.line, job.end_line, job.key)
    how = "at import"
    shapes = ""
    recorder = None
    if ran < 2 and job.key is not None and job.f.get("function"):
        entry = job.entry()
        sig, is_method, static, _, eager = job.callables(entry)
        how = f"calling {job.f.get('function')} once, as one call of the program does"
        last = None
        for a in job.args_list(entry, sig, is_method, static, concrete=True):
            jax.clear_caches()  # count the compiles of this run, not of the import
            start, site_start = len(state["misses"]), len(state["compile_sites"])
            state["budget"], state["spent"] = state["budget_total"], 0
            recorder = _CallRecorder(job)
            try:
                with job.watch() as w, recorder:
                    # Once: a second call the program does not make would stage the miss.
                    eager(*a.args, **a.kwargs)
            except CompileBudget:
                pass
            except Exception as exc:  # noqa: BLE001 - wrong guess of argument shapes
                last = (exc, a.shapes)
                continue
            # Only this run's misses: the import's were before jax.clear_caches().
            records = state["misses"][start:]
            sites = state["compile_sites"][site_start:]
            ran, shapes, last = job.ran_line(w), a.shapes, None
            break
        if last is not None:
            return verdict(COULD_NOT_RUN, f"the function raised {type(last[0]).__name__}",
                           f"{first_line(last[0])} (with {last[1]})", last[1])
    misses = misses_at(job, records) or compiled_at(job, state["misses"], sites)
    # The second miss shows what changed between the first two calls at the line.
    evidence = misses[min(1, len(misses) - 1)].strip() if misses else ""
    if ran == 0:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran", f"tried {how}", shapes)
    n = len(misses)
    calls = recorder.calls if recorder is not None and recorder.name else []
    distinct = list(dict.fromkeys(calls))
    if n >= 2:
        return verdict(CONFIRMED, f"{n} compiles for {max(ran, len(calls))} calls",
                       CompileEvidence(compiles=n, calls=max(ran, len(calls)), how=how,
                                       miss=evidence), shapes)
    if len(distinct) >= 2 and job.confirm.get("kind") == "recompile":
        shown = " | ".join(_varying([list(d) for d in distinct])[:4]) + (
            " | ..." if len(distinct) > 4 else "")
        return verdict(CONFIRMED, f"{len(distinct)} compiled versions for {len(calls)} calls",
                       CompileEvidence(compiles=len(distinct), calls=len(calls), how=how,
                                       signatures=shown, miss=evidence,
                                       note=f"line {job.line} called {recorder.name} with "
                                            f"{len(distinct)} distinct signatures, each its own "
                                            f"cache entry and compile ({n} compiled at this line, "
                                            f"the rest earlier in the same run)"), shapes)
    seen = f"; the call used {len(distinct)} signature(s): " \
        f"{' | '.join(', '.join(d) for d in distinct[:2])}" if distinct else ""
    if n == 0 and len(distinct) == 1 and calls:
        return verdict(NOT_REPRODUCED, f"one signature at line {job.line}: no recompile",
                       CompileEvidence(compiles=0, calls=len(calls), how=how,
                                       note=f"ran {how}; every call at line {job.line} had the same "
                                            f"cache key, compiled at most once{seen}"), shapes)
    if n == 0 and ran == 1:
        return verdict(NOT_REPRODUCED, f"line {job.line} ran once: one compile at most",
                       CompileEvidence(compiles=0, calls=1, how=how,
                                       note=f"ran {how}; line {job.line} ran once{seen}"), shapes)
    if n == 0:
        # Zero compiles proves nothing: the call never compiled here (or a warm cache served it).
        return verdict(COULD_NOT_RUN, f"no compile at line {job.line}",
                       f"ran {how}; the jitted call at line {job.line} never compiled (a cache "
                       f"warmed earlier served it, or the arguments did not vary){seen}", shapes)
    return verdict(NOT_REPRODUCED, f"{n} compile for {max(ran, len(calls))} calls",
                   CompileEvidence(compiles=n, calls=max(ran, len(calls)), how=how, miss=evidence,
                                   note=f"ran {how}; {evidence or 'no cache miss at this line after the first'}"
                                        f"{seen}"), shapes)




def last_miss_line(path: str, records: list[str]) -> Optional[int]:
    real = os.path.realpath(path)
    for rec in reversed(records):
        m = _MISS_AT.search(rec)
        if m and os.path.realpath(m.group("file")) == real:
            return int(m.group("line"))
    return None


def _made_in_run(job: Job):
    """The jitted objects made at the flagged line: in the import, else in one call of the
    function as the program calls it."""
    watch = job.state.get("jit_watch")
    if watch is None:
        return None, "jax.jit was not watched"
    made = watch.made_at(job.line, job.end_line, upto=getattr(watch, "imported", None))
    how = "at import"
    if not made and job.f.get("function"):
        entry = job.entry()
        sig, is_method, static, _, eager = job.callables(entry)
        how = f"calling {job.f.get('function')} once, as the program calls it"
        probe = (job.state.get("probes") or {}).get(job.f.get("_index"))
        for a in job.args_list(entry, sig, is_method, static, concrete=True):
            line_watch = LineWatch(job.path)
            if probe is not None:
                line_watch.add_probe(probe)
            before = len(watch.made)
            try:
                with line_watch, contextlib.redirect_stdout(io.StringIO()):
                    eager(*a.args, **a.kwargs)
            except CompileBudget:
                pass
            except Exception:  # noqa: BLE001 - what ran before the error still counts
                pass
            made = watch.made_at(job.line, job.end_line, since=before)
            if made:
                job.shapes_used = a.shapes
                break
    return made, how


def confirm_fresh_callable(job: Job) -> Verdict:
    """JAX402: the line made new jax.jit objects of the same computation (the same code and
    closure, the same partial, the same bound method) while the program ran, and that function
    compiled once per object. Different computations (`partial(f, ord=1)`, then `ord=2`) are
    separate compiles by design and do not count."""
    made, how = _made_in_run(job)
    if made is None:
        return verdict(COULD_NOT_RUN, "jax.jit was not watched", how)
    if not made:
        return verdict(COULD_NOT_RUN, f"no jax.jit(...) or lax loop ran at line {job.line}",
                       f"tried {how}")
    lax = [m for m in made if m.compiles is not None]
    if lax:
        return _fresh_lax(job, lax, how)
    groups = jit_watch.repeated(made)
    key, same = groups.most_common(1)[0] if groups else ("", 0)
    name = next((m.name for m in made if m.key == key), made[0].name)
    compiles = sum(n for fn, n in job.state["compiles"].items() if str(fn)[4:-1] == name)
    record = CompileEvidence(compiles=compiles, calls=sum(m.calls for m in made), how=how,
                             note=f"line {job.line} made {len(made)} jax.jit objects ({how}); "
                                  f"{same} of them, called, wrap the same computation "
                                  f"({name}); jit({name}) compiled {compiles} times in "
                                  f"{sum(m.calls for m in made if m.key == key)} calls of them")
    calls = sum(m.calls for m in made if m.key == key)
    # Most calls of the fresh objects compile anew: a jitted closure rebuilt once per outer
    # call and reused for thousands of steps compiles rarely, and that is the fine case.
    if same >= 2 and compiles >= 2 and 2 * compiles > calls:
        return verdict(CONFIRMED, f"{compiles} compiles of the same {name}", record)
    return verdict(NOT_REPRODUCED, f"line {job.line} made {len(made)} jitted object(s), "
                                   f"{same} of the same computation", record)


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _fresh_lax(job: Job, calls: list, how: str) -> Verdict:
    """JAX402 at an eager `lax.while_loop` / `scan` / `cond` (...): the calls at the line with
    the same computation (the functions' code and bound values, the operands' shapes), and
    the compiles of the loop itself in those whose functions were new objects. Shapes that
    change, or a cache the program cleared, compile too, but not because of a fresh function."""
    groups = Counter(m.key for m in calls)
    key, same = groups.most_common(1)[0]
    group = [m for m in calls if m.key == key]
    compiles = sum(m.compiles for m in group if m.fresh)
    eager = sum(m.compiles for m in calls)
    name = group[0].name
    record = CompileEvidence(
        compiles=compiles, calls=same, how=how,
        note=f"line {job.line} called lax.{name} {_times(len(calls))} ({how}), {same} with the "
             f"same computation and operand shapes; {sum(m.fresh for m in group)} of those "
             f"with new function objects, which compiled {_times(compiles)}"
             + (f" ({eager} compiles at the line in all)" if eager != compiles else "")
             + ("" if eager else ": none ran eagerly (under a trace, the enclosing jit compiles it)"))
    # As for jit objects: most calls compile anew, and at least twice.
    if same >= 2 and compiles >= 2 and 2 * compiles > same:
        return verdict(CONFIRMED, f"{compiles} compiles of the same lax.{name} in {same} calls",
                       record)
    return verdict(NOT_REPRODUCED, f"lax.{name} at line {job.line}: {compiles} compile(s) of the "
                                   f"same computation in {same} call(s)", record)
