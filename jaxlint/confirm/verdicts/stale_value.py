"""A value fixed at trace time: a stale global (JAX103), an iterator or a clock read once
(JAX104, JAX105)."""

from __future__ import annotations

import contextlib
import io
import os
import dataclasses
from typing import ClassVar

import jax
import numpy as np

from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, Evidence, Job,
                                           Verdict, concrete_runs, leaves_equal, short, verdict)


@dataclasses.dataclass
class StaleEvidence(Evidence):
    """A call of the program's jitted function whose result differs from the same call without
    jit, because a global it read changed after the trace."""

    kind: ClassVar[str] = "stale-value"
    name: str = ""  # the global
    traced_with: str = ""  # its value at the first (tracing) call
    value_now: str = ""  # its value at this call
    call_line: int = 0
    jit_result: str = ""
    eager_result: str = ""
    calls: int = 0

    def text(self) -> str:
        if not self.call_line:
            return self.note
        return (f"the program called it {self.calls} time(s); at line {self.call_line}, with "
                f"{self.name} = {self.value_now} (traced with {self.traced_with}), jit returned "
                f"{self.jit_result}, without jit {self.eager_result}" + (
                    f"; {self.note}" if self.note else ""))


def _program_calls(job: Job, recorder) -> list:
    from jaxlint.confirm.target import contains, code_key

    return [c for c in recorder.calls if job.key is not None
            and (code_key(c.code) == job.key or contains(c.code, job.key))]


def confirm_stale_global(job: Job) -> Verdict:
    """The program's own sequence: it calls the jitted function, rebinds the global, calls it
    again. Confirmed when a later call's jitted result differs from the same call without jit
    (taken at that moment, with the global as the program left it). Nothing is rebound here."""
    name = job.confirm.get("global_name")
    recorder = job.state.get("jit_watch")
    if not name or recorder is None:
        return verdict(COULD_NOT_RUN, "the rule named no global")
    calls = _program_calls(job, recorder)
    if not calls:
        _run_callers(job)
        calls = _program_calls(job, recorder)
    if not calls:
        return verdict(COULD_NOT_RUN, f"the program never called {job.f.get('function')} jitted",
                       "neither the module-level code nor a module function without parameters "
                       "that calls it ran a jitted call (an `if __name__ == \"__main__\":` block "
                       "does not run)")
    first = calls[0].globals_now.get(name)
    for c in calls:
        if c.error or c.eager_result is None:
            continue
        if not leaves_equal(c.jit_result, c.eager_result):
            return verdict(CONFIRMED, f"stale {name}: jit returned {short(c.jit_result)}, "
                                      f"without jit {short(c.eager_result)}",
                           StaleEvidence(name=name, traced_with=short(first),
                                         value_now=short(c.globals_now.get(name)), call_line=c.line,
                                         jit_result=short(c.jit_result),
                                         eager_result=short(c.eager_result), calls=len(calls)))
    changed = any(not leaves_equal(c.globals_now.get(name), first) for c in calls)
    return verdict(NOT_REPRODUCED, "every jitted call agreed with the call without jit",
                   StaleEvidence(note=f"the program called it {len(calls)} time(s); {name} "
                                      f"{'changed between calls' if changed else 'never changed'}"
                                      f"; jit and eager agreed each time"))


def _run_callers(job: Job) -> None:
    """Module functions without parameters that call the flagged function by name (a
    `main()` the program defines): run each once, as the program would."""
    name = (job.f.get("function") or "").rsplit(".", 1)[-1]
    for attr, value in list(vars(job.module).items()):
        code = getattr(value, "__code__", None)
        if code is None or os.path.realpath(code.co_filename) != os.path.realpath(job.path) \
                or name not in code.co_names or code.co_argcount or attr.startswith("_"):
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                value()
        except Exception:  # noqa: BLE001 - what it called before failing still counts
            continue


def confirm_iterator(job: Job) -> Verdict:
    """A value fixed at trace time (`next(it)`, a NumPy draw, a clock read). Within one call:
    the line ran fewer times under jit than without it (a loop body traced once) and the
    results differ. Across calls: only as many as the program made (at most 4), every jitted
    call returned the same value while the calls without jit did not. Two calls that differ
    prove nothing by themselves: the iterator moved on, or the draw was new."""
    from jaxlint.confirm.verdicts.jit_watch import program_calls

    loops = [lp for lp in job.state.get("iter_loops") or () if job.line <= lp.flagged <= job.end_line]
    if loops:
        return _loop_verdict(job, loops)
    entry = job.entry()
    made = program_calls(job.state, entry.code)
    calls = min(4, made)

    def body(job, a, jitted, eager):
        jax.clear_caches()
        with job.watch() as w:
            got = jitted(*a.args, **a.kwargs)
        n_jit = job.ran_line(w)
        if not n_jit:
            return None
        with job.watch() as w_eager, jax.disable_jit():
            want = eager(*a.args, **a.kwargs)
        n_eager = job.ran_line(w_eager)
        if n_jit < n_eager and not leaves_equal(got, want):  # fused arithmetic may round
            return verdict(CONFIRMED, f"jit returned {short(got)}, eager {short(want)}",
                           StaleEvidence(jit_result=short(got), eager_result=short(want),
                                         note=f"the value was fixed at trace time: in one call "
                                              f"line {job.line} ran {n_jit} time(s) under jit, "
                                              f"{n_eager} under jax.disable_jit(); jit gave "
                                              f"{short(got)}, jax.disable_jit() gave {short(want)}"))
        if calls < 2 and leaves_equal(got, want):
            return verdict(NOT_REPRODUCED, "jit and eager agree in one call",
                           f"both returned {short(got)}; line {job.line} ran {n_jit} time(s) "
                           f"under jit, {n_eager} without; the program called it {made} time(s)")
        if calls < 2:
            return verdict(NOT_REPRODUCED, f"the program called it {made} time(s)",
                           f"line {job.line} ran {n_jit} time(s) under jit, {n_eager} without, in "
                           f"one call each; a value fixed at trace time shows from the program's "
                           f"second call, and it made {made}")
        jit_again = [jitted(*a.args, **a.kwargs) for _ in range(calls - 1)]
        with jax.disable_jit():
            eager_again = [eager(*a.args, **a.kwargs) for _ in range(calls - 1)]
        if all(_exactly_equal(got, g) for g in jit_again) \
                and not all(_exactly_equal(want, e) for e in eager_again):
            return verdict(CONFIRMED, f"jit returned {short(got)} on every call",
                           StaleEvidence(jit_result=short(got), calls=made, note=(
                               f"the value was fixed at trace time: {calls} jitted calls (the "
                               f"program made {made}) all returned {short(got)}; {calls} calls "
                               f"under jax.disable_jit() gave different values")))
        return verdict(NOT_REPRODUCED, "jit and eager agree",
                       f"{calls} calls each (the program made {made}); jit returned {short(got)}")

    return concrete_runs(job, body)




@dataclasses.dataclass
class LoopEvidence(Evidence):
    """The program's own lax loop call: the iterations it asked for, and how often the flagged
    line in its body ran during the call."""

    kind: ClassVar[str] = "traced-once"
    call_line: int = 0
    loop: str = ""
    iterations: int = 0
    runs: int = 0
    reads: int = 0

    def text(self) -> str:
        return (f"the program's lax.{self.loop} at line {self.call_line} asked for "
                f"{self.iterations} iteration(s); line {self.note} ran {self.runs} time(s) during "
                f"the call and read {self.reads} item(s) with next")


def _loop_verdict(job: Job, loops: list) -> Verdict:
    """JAX105 in a fori_loop / scan body the program itself ran: a body traced once runs
    its Python code (the `next`) once, and the compiled loop repeats the items read then for
    every iteration. Confirmed when the line ran, fewer times than the loop iterated."""
    for lp in loops:
        # The line read an item (a call of next there, seen as it ran), and ran fewer times
        # than the loop iterates: the other iterations reuse it.
        if lp.reads and 0 < lp.runs < lp.trips:
            return verdict(CONFIRMED, f"line {lp.flagged} ran {lp.runs} time(s) for {lp.trips} "
                                      f"iterations of the program's lax.{lp.name}",
                           LoopEvidence(call_line=lp.line, loop=lp.name, iterations=lp.trips,
                                        runs=lp.runs, reads=lp.reads, note=str(lp.flagged)))
    lp = loops[0]
    why = "the line never ran in it" if not lp.runs else \
        "it read no item from an iterator (no call of next there)" if not lp.reads else \
        "every iteration ran the line itself: no item was reused"
    return verdict(NOT_REPRODUCED, f"the program's lax.{lp.name} ran line {lp.flagged} "
                                   f"{lp.runs} time(s) for {lp.trips} iteration(s)",
                   LoopEvidence(call_line=lp.line, loop=lp.name, iterations=lp.trips,
                                runs=lp.runs, reads=lp.reads, note=f"{lp.flagged} ({why})"))


@dataclasses.dataclass
class DiscardedEvidence(Evidence):
    kind: ClassVar[str] = "discarded-update"
    line: int = 0
    name: str = ""
    value: str = ""
    runs: int = 0

    def text(self) -> str:
        if not self.line:
            return self.note
        if self.note:  # a loop variable rebound: the container kept the old array
            return f"line {self.line} ran {self.runs} time(s); {self.note} ({self.value}): " \
                   f"the updated copy was dropped"
        return f"line {self.line} ran {self.runs} time(s); `{self.name}` was the same array " \
               f"after it ({self.value}): the updated copy was dropped"


def confirm_discarded_update(job: Job) -> Verdict:
    """JAX302: the statement ran and the array it updates was the very same object after it."""
    import ast as _ast

    from jaxlint.confirm.verdicts.probe import probe_hits
    from jaxlint.confirm.verdicts.probe import MISSING, statement

    stmt = statement(job.path, job.line)
    base = None
    for node in _ast.walk(stmt) if stmt is not None else ():
        if isinstance(node, _ast.Attribute) and node.attr == "at" and isinstance(node.value, _ast.Name):
            base = node.value.id
            break
    if isinstance(stmt, _ast.AugAssign):
        return _rebound_loop_variable(job, stmt)
    if base is None or not isinstance(stmt, _ast.Expr):
        return verdict(COULD_NOT_RUN, "no discarded `x.at[...]` statement at the line")
    hits = probe_hits(job)
    if not hits:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran")
    for hit in hits:
        before, after = hit.before.get(base, MISSING), hit.after.get(base, MISSING)
        if before is MISSING or hit.raised:
            continue
        if after is before:
            return verdict(CONFIRMED, f"`{base}` unchanged by line {job.line}",
                           DiscardedEvidence(line=job.line, name=base, value=short(after),
                                             runs=len(hits)))
        return verdict(NOT_REPRODUCED, f"`{base}` changed at line {job.line}",
                       DiscardedEvidence(note=f"`{base}` was rebound by the statement"))
    return verdict(COULD_NOT_RUN, f"`{base}` held nothing when line {job.line} ran")


def _rebound_loop_variable(job: Job, stmt) -> Verdict:
    """`for param, g in zip(params, grads): param -= lr * g`: after the statement, `param`
    names a new array while the container still holds the old one (a NumPy array would be
    changed in place: the same object before and after, and nothing is lost)."""
    from jaxlint.confirm.verdicts.probe import MISSING, loop_of, names_in, probe_hits

    name = stmt.target.id
    loop = loop_of(job.path, stmt)
    if loop is None:
        return verdict(COULD_NOT_RUN, f"`{name}` is not the variable of an enclosing `for` loop")
    containers = [n for n in names_in(loop.iter) if n not in ("zip", "enumerate", "reversed",
                                                               "list", "tuple", "range")]
    hits = probe_hits(job)
    if not hits:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran",
                       "neither the module-level code nor the program's own call of the "
                       "function ran it")
    for hit in hits:
        old, new = hit.before.get(name, MISSING), hit.after.get(name, MISSING)
        if old is MISSING or new is MISSING or hit.raised:
            continue
        if new is old:
            return verdict(NOT_REPRODUCED, f"`{name}` was updated in place at line {job.line}",
                           DiscardedEvidence(note=f"`{name}` was the same object after the "
                                                  f"statement ({type(old).__name__}): the "
                                                  f"container saw the update"))
        for container in containers:
            held = hit.after.get(container, MISSING)
            if held is MISSING:
                continue
            if any(leaf is old for leaf in jax.tree_util.tree_leaves(held)):
                return verdict(CONFIRMED, f"`{container}` still holds the old `{name}` after "
                                          f"line {job.line}",
                               DiscardedEvidence(line=job.line, name=container, value=short(old),
                                                 runs=len(hits), note=(
                                   f"`{name}` was rebound to a new array ({short(new)}); "
                                   f"`{container}` still holds the array it had before")))
        return verdict(NOT_REPRODUCED, f"`{name}` was rebound, and no container of the loop "
                                       f"holds its old value",
                       DiscardedEvidence(note=f"looked in {', '.join(containers) or 'nothing'}"))
    return verdict(COULD_NOT_RUN, f"`{name}` held nothing when line {job.line} ran")


def _exactly_equal(a, b) -> bool:
    """Bit for bit: a clock read differs from the next one by less than allclose's tolerance."""
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    # Cast to the first one's dtype: jit returns float32 where Python returns a float.
    return len(la) == len(lb) and all(
        np.array_equal(np.asarray(x), np.asarray(y).astype(np.asarray(x).dtype), equal_nan=True)
        for x, y in zip(la, lb))
