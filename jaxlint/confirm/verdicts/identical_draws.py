"""PRNG key reuse (JAX501-JAX503): two draws with the same key give the same numbers."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import jax

from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, Evidence, Job,
                                           Verdict, first_line, verdict)


def _program_call(job: Job):
    """The program called the jitted function itself (its keys were tracers there): the first
    of those calls, with the arguments the program passed, once more without jit, so that the
    keys are concrete and the draws can be compared. (draws, how), or None."""
    from jaxlint.confirm.target import code_key

    watch = job.state.get("jit_watch")
    calls = [c for c in (watch.calls if watch is not None else ())
             if c.args and job.key is not None and code_key(c.code) == job.key]
    if not calls:
        return None
    call = calls[0]
    fn = next((c for c in vars(job.module).values() if getattr(c, "code", None) is call.code
               or getattr(getattr(c, "__wrapped__", None), "__code__", None) is call.code), None)
    if fn is None:
        return None
    start = len(job.state["draws"])
    try:
        with jax.disable_jit():
            fn(*call.args, **call.kwargs)
    except Exception:  # noqa: BLE001 - the draws made before the error still count
        pass
    return job.state["draws"][start:], (f"the program's call at line {call.line}, with its "
                                        f"arguments, without jit (under jit its keys are tracers)")


@dataclasses.dataclass
class DrawEvidence(Evidence):
    """Two draws, at the flagged sites, with the same key."""

    kind: ClassVar[str] = "identical-draws"
    first_line: int = 0
    second_line: int = 0
    key: str = ""
    values: str = ""


def confirm(job: Job) -> Verdict:
    state = job.state
    draws = [d for d in state["import_draws"]]
    how, shapes = "at import", ""
    if not any(job.line <= d["line"] <= job.end_line for d in draws) and job.f.get("function"):
        replayed = _program_call(job)
        if replayed is not None:
            draws, how = replayed
    if not any(job.line <= d["line"] <= job.end_line for d in draws) and job.f.get("function"):
        entry = job.entry()
        sig, is_method, static, _, eager = job.callables(entry)
        how, last = f"calling {job.f.get('function')} without jit", None
        for a in job.args_list(entry, sig, is_method, static, concrete=True):
            start = len(state["draws"])
            try:
                with jax.disable_jit():  # keys stay concrete, so the draws can be compared
                    eager(*a.args, **a.kwargs)
            except Exception as exc:  # noqa: BLE001 - wrong guess of argument shapes
                last = (exc, a.shapes)
                continue
            draws, shapes, last = state["draws"][start:], a.shapes, None
            break
        if last is not None:
            return verdict(COULD_NOT_RUN, f"the function raised {type(last[0]).__name__}",
                           f"{first_line(last[0])} (with {last[1]})", last[1])
    here = [d for d in draws if job.line <= d["line"] <= job.end_line]
    if not here:
        return verdict(COULD_NOT_RUN, f"no random draw ran at line {job.line}", f"tried {how}",
                       shapes)
    # The flagged sites: the earlier draw the rule names (`previous_line`), else the flagged
    # line itself drawing again (a loop). A key equal to some other draw's proves nothing.
    previous = job.confirm.get("previous_line")
    sites = {int(previous)} if isinstance(previous, int) or str(previous).isdigit() else \
        set(range(job.line, job.end_line + 1))
    for d in here:
        for other in draws:
            if other is d or other["key"] != d["key"] or other["line"] not in sites:
                continue
            if "fold_in" in (d["fn"], other["fn"]) or (
                    d["fn"] == other["fn"] and d["value"] != other["value"]):
                continue  # fold_in derives new keys from one key; different data, different draws
            same = ", giving identical values" if other["fn"] == d["fn"] and \
                other["value"] == d["value"] else ""
            where = f"line {d['line']} drew twice" if other["line"] == d["line"] else \
                f"line {other['line']} and line {d['line']} drew"
            return verdict(CONFIRMED, f"{where} with the same key{same}", DrawEvidence(
                first_line=other["line"], second_line=d["line"], key=d["key"],
                values=f"{other['value']} / {d['value']}",
                note=f"{other['fn']} at line {other['line']} -> {other['value']}; "
                     f"{d['fn']} at line {d['line']} -> {d['value']} (same key {d['key']}; "
                     f"drawn {how})"), shapes)
    at = " and ".join(f"line {n}" for n in sorted(sites | {job.line}))
    return verdict(NOT_REPRODUCED, "the flagged draws used different keys",
                   f"{len(draws)} draws ({how}); no two draws at {at} share a key", shapes)


