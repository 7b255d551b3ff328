"""Leaked tracers and state written once per trace (JAX102)."""

from __future__ import annotations

import os
import re
import types
import dataclasses
from typing import Any, ClassVar, Optional

import jax

from jaxlint.confirm.target import code_span
from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, Evidence, Job,
                                           Verdict, first_line, verdict)


def _tracers_in(roots: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """(path, tracer) for each tracer reachable from the roots (module globals, `self`)."""
    out = []
    tracer = jax.core.Tracer

    def look(value, where, depth):
        if isinstance(value, tracer):
            out.append((where, value))
        elif depth > 0:
            if isinstance(value, (list, tuple, set)):
                for i, v in enumerate(list(value)[:100]):
                    look(v, f"{where}[{i}]", depth - 1)
            elif isinstance(value, dict):
                for k, v in list(value.items())[:100]:
                    look(v, f"{where}[{k!r}]", depth - 1)
            elif hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType,
                                                                          types.FunctionType)):
                for k, v in list(vars(value).items())[:100]:
                    look(v, f"{where}.{k}", depth - 1)

    for where, value in roots:
        look(value, where, 3)
    return out


def _roots(job: Job) -> list[tuple[str, Any]]:
    roots = [(name, value) for name, value in list(vars(job.module).items())
             if not name.startswith("__")]
    if job.instance_obj is not None:
        roots.append(("self", job.instance_obj))
    return roots


_TRACED_FN = re.compile(r"(?:while tracing the function|traced when the value leaked was) "
                        r"(?P<name>[\w.<>]+) at (?P<file>.+?):(?P<line>\d+)")
_CREATED_ON = re.compile(r"created on line (?P<file>.+?):(?P<line>\d+)")


def _in_target(job: Job, file: str, line: int) -> bool:
    """A def line or a source line that lies in the flagged function (nested bodies included)."""
    if os.path.realpath(file) != os.path.realpath(job.path) or job.target is None:
        return False
    first, last = code_span(job.target)
    return first <= line <= last


def _made_by_target(job: Job, tracer, unknown: bool = True) -> bool:
    """The tracer belongs to a trace of the flagged function (or of a body nested in it):
    its trace's debug info names the traced function and its def line. `unknown`: the answer
    when the private API moved (a tracer new since our own trace is the flagged one's)."""
    try:
        info = tracer._trace.frame.debug_info.func_src_info  # "leaky at /path/mod.py:27"
    except Exception:  # noqa: BLE001 - private API moved
        return unknown
    m = re.search(r" at (?P<file>.+?):(?P<line>\d+)$", str(info or ""))
    return bool(m) and _in_target(job, m.group("file"), int(m.group("line")))


def _leak_error_here(job: Job, exc: BaseException) -> Optional[str]:
    """JAX's own leak report about the flagged function: `checking_leaks`' "Leaked trace"
    (while tracing it) or an UnexpectedTracerError whose value was created in it."""
    text = str(exc)
    if type(exc).__name__ == "UnexpectedTracerError":
        m = _CREATED_ON.search(text)
        if m and _in_target(job, m.group("file"), int(m.group("line"))):
            return f"UnexpectedTracerError: the leaked value was created at " \
                   f"{os.path.basename(m.group('file'))}:{m.group('line')}"
        return None
    if "Leaked trace" in text:
        m = _TRACED_FN.search(text)
        if m and _in_target(job, m.group("file"), int(m.group("line"))):
            chain = [ln.strip() for ln in text.splitlines() if "is referred to by" in ln]
            name = job.confirm.get("global_name")
            if name and not any(re.search(rf"\.{re.escape(name)}\b", ln) for ln in chain):
                return None  # a leak, but into another global than the flagged line's
            return f"jax.checking_leaks(): Leaked trace while tracing {m.group('name')} at " \
                   f"{os.path.basename(m.group('file'))}:{m.group('line')}" + (
                       f"; {chain[-1]}" if chain else "")
    return None


def confirm(job: Job) -> Verdict:
    """A tracer created by the flagged function and stored outside its trace: found in module
    globals or in `self` after a plain trace (cheap), or reported by JAX itself (the leak
    checker's "Leaked trace" while tracing the flagged function, an UnexpectedTracerError for
    a value created in it); else a module-level value that changes once per trace."""
    attr = job.confirm.get("attr_name")
    if attr:
        # `self.n += 1` in a method the program jits as a bound method: its own calls show
        # the attribute move (or not); a `self` built here would show nothing of the program.
        once = _runs_once(job, f"self.{attr}", None, None, None, None, None, None)
        if once is not None:
            return once
    left = _left_by_program(job, attr)
    if left is not None:
        return left
    entry = job.entry()
    sig, is_method, static, jitted, eager = job.callables(entry)
    name = job.confirm.get("global_name")
    tried, last_err = [], None
    for a in job.args_list(entry, sig, is_method, static, concrete=False):
        tried.append(a.shapes)
        before = {id(t) for _, t in _tracers_in(_roots(job))}
        jax.clear_caches()  # a cached trace runs nothing
        with job.watch() as w:
            try:
                jitted.trace(*a.args, **a.kwargs)
                failed = None
            except Exception as exc:  # noqa: BLE001
                failed = exc
        if failed is not None:
            said = _leak_error_here(job, failed)
            if said:
                return verdict(CONFIRMED, "JAX reported the leaked tracer",
                               LeakEvidence(reported_by=type(failed).__name__, note=said), a.shapes)
        if not job.ran_line(w):
            if failed is not None:
                last_err = (failed, a.shapes)
            continue
        found = [p for p, t in _tracers_in(_roots(job))
                 if id(t) not in before and _made_by_target(job, t)]
        if name:
            found = [p for p in found if re.match(re.escape(name) + r"\b", p)]
        if found:
            return verdict(CONFIRMED, f"tracer leaked into {found[0]}", LeakEvidence(
                where=found[0], reported_by="a scan of the module's globals",
                note=f"after tracing {job.f.get('function')}, {', '.join(found[:3])} holds a "
                     f"tracer made while tracing it"), a.shapes)
        if failed is not None:
            last_err = (failed, a.shapes)  # the trace failed for another reason: proves nothing
            continue
        once = _runs_once(job, name, entry, sig, is_method, static, jitted, eager)
        if once is not None:
            return once
        if name and isinstance(getattr(job.module, name, None), (int, float, str, bool)):
            # A number cannot hold a tracer: only the program's calls show a counter moving
            # once per trace, and it made fewer than two (the leak checker would say nothing).
            return verdict(NOT_REPRODUCED, f"`{name}` holds no tracer",
                           LeakEvidence(where=name, note=(
                               f"after tracing {job.f.get('function')}, `{name}` holds "
                               f"{getattr(job.module, name)!r}; the program made fewer than two "
                               f"jitted calls, so it cannot show it moving once per trace")),
                           a.shapes)
        jax.clear_caches()  # the leak checker fires only on a real trace
        checker = None
        try:
            with jax.checking_leaks():
                jitted.trace(*a.args, **a.kwargs)
        except Exception as exc:  # noqa: BLE001
            checker = exc
        said = _leak_error_here(job, checker) if checker is not None else None
        if said:
            return verdict(CONFIRMED, "jax.checking_leaks() reported a leaked tracer",
                           LeakEvidence(reported_by="jax.checking_leaks()", note=said), a.shapes)
        checker_text = first_line(checker) if checker is not None else "the leak checker was silent"
        return verdict(NOT_REPRODUCED, "no tracer leaked",
                       LeakEvidence(where=name or "", reported_by="jax.checking_leaks()", note=(
                           f"line {job.line} ran under jax.checking_leaks(); no module global "
                           f"{'`' + name + '` ' if name else ''}holds a new tracer "
                           f"({checker_text})")), a.shapes)
    if last_err is not None:
        return verdict(COULD_NOT_RUN, f"the function raised {type(last_err[0]).__name__}",
                       f"{first_line(last_err[0])} (with {last_err[1]})", last_err[1])
    return verdict(COULD_NOT_RUN, f"line {job.line} never ran", f"tried: {' | '.join(tried)}")


def _left_by_program(job: Job, attr: Optional[str]) -> Optional[Verdict]:
    """A tracer the program's own run left in its state: reachable from a module global (the
    flagged global, or an object's flagged attribute: `trainer.params[0]` for `self.params`),
    made by a trace of the flagged function. Nothing is traced or built here: this is what
    the program holds after its import, `self` included when the program made it."""
    if job.module is None:
        return None
    name = job.confirm.get("global_name")
    where = re.compile(rf"[^.\[]+(\.[^.\[]+)*\.{re.escape(attr)}\b" if attr
                       else rf"{re.escape(name)}\b" if name else r"$^")
    found = [p for p, t in _tracers_in(_roots(job))
             if where.match(p) and _made_by_target(job, t, unknown=False)]
    if not found:
        return None
    return verdict(CONFIRMED, f"tracer leaked into {found[0]}", LeakEvidence(
        where=found[0], reported_by="the program's own run",
        note=f"after the program ran, {', '.join(found[:3])} holds a tracer made while "
             f"tracing {job.f.get('function')}"))


@dataclasses.dataclass
class LeakEvidence(Evidence):
    """A tracer stored outside its trace, or state written once per trace."""

    kind: ClassVar[str] = "leak"
    where: str = ""  # `LEAKED[0]`, `self.cache`, or the global that moved
    reported_by: str = ""  # "jax.checking_leaks()", "UnexpectedTracerError", "the program's calls"

    def text(self) -> str:
        return self.note


def _runs_once(job: Job, name, entry, sig, is_method, static, jitted, eager) -> Optional[Verdict]:
    """`counter += 1` under jit: across the program's own calls (recorded by jit_watch), the
    global moved at the first call (the trace) and not at the later ones."""
    watch = job.state.get("jit_watch")
    if watch is None or not name:
        return None
    from jaxlint.confirm.target import code_key, contains

    calls = [c for c in watch.calls if job.key is not None and name in c.globals_now
             and (code_key(c.code) == job.key or contains(c.code, job.key))]
    value = calls[-1].globals_after.get(name) if calls else getattr(job.module, name, None)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or len(calls) < 2:
        return None
    moves = [c.globals_after.get(name) != c.globals_now.get(name) for c in calls]
    seen = " -> ".join(str(c.globals_now.get(name)) for c in calls) + \
        f" -> {calls[-1].globals_after.get(name)}"
    record = LeakEvidence(where=name, reported_by="the program's calls",
                          note=f"the program called {job.f.get('function')} {len(calls)} times; "
                               f"`{name}` went {seen}")
    if moves[0] and not any(moves[1:]):
        return verdict(CONFIRMED, f"{name} moved once in {len(calls)} calls", record)
    if all(moves):
        return verdict(NOT_REPRODUCED, f"{name} moved on every call", record)
    return None
