"""Trace-time errors: the exception JAX raises at the flagged line while the program's function
is traced as the program traces it (jit's abstract tracers, grad's JVP tracers over concrete
values, or a plain call), with the arguments its call sites pass."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import os

from jaxlint.confirm.target import (excerpt, frame_lines, innermost_user_frame, raised_at,
                                   user_frames)
from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, Evidence,
                                           Job, Verdict, first_line, verdict)
from jaxlint.jax_api import ERROR_WORDING

# `jnp.zeros(n)` raises a plain TypeError: only its wording makes it a trace error.
_SHAPE_ERROR = ERROR_WORDING["JAX207"][0]
_NON_HASHABLE = ERROR_WORDING["JAX404"][0]
# Item assignment on a JAX array (JAX301) is a plain TypeError too.
# Other errors JAX raises for a rule's pattern, measured on jax 0.10.2: `jax.nn.one_hot(x, n)`
# with a traced n is a ConcretizationTypeError, not the TypeError of `jnp.zeros(n)`.
_ALSO_RAISES = {"JAX207": ("ConcretizationTypeError",)}
# An array in a pytree's metadata (JAX404): jit compares a second instance's metadata with the
# traced one's on the cache lookup, and jax 0.10.2 raises a ValueError saying so.
_WORDING = {**ERROR_WORDING, "JAX301": ("does not support item assignment",
                                        "immutable", "object does not support item assignment"),
            "JAX404": ERROR_WORDING["JAX404"] + (
                "Exception raised while checking equality of metadata fields of pytree",)}


@dataclasses.dataclass
class TraceErrorEvidence(Evidence):
    """An exception at a line of the flagged function."""

    kind: ClassVar[str] = "trace-error"
    exception: str = ""
    message: str = ""
    line: int = 0
    traceback: str = ""
    how: str = ""  # "jax.jit(f).trace", "jax.jvp (as grad)", "a plain call", "import"

    def text(self) -> str:
        if not self.exception:  # the line ran and raised nothing
            return self.note
        how = f" ({self.how})" if self.how else ""
        return f"{self.exception}: {self.message}; raised at {self.traceback or f'line {self.line}'}{how}"


_HOW = {"jit": "traced abstractly, as jit/vmap trace it", "jvp": "run under jax.jvp, as grad runs it",
        "eager": "called plainly, as the program calls it"}


def _on_stack(exc: BaseException, job: Job) -> bool:
    """A frame of the exception's traceback is at the flagged lines of the file."""
    return any(os.path.realpath(fr.filename) == os.path.realpath(job.path)
               and fr.line <= job.end_line and job.line <= max(fr.line, fr.end_line)
               for fr in user_frames(exc))


def _record(job: Job, exc: BaseException) -> TraceErrorEvidence:
    name = type(exc).__name__
    return TraceErrorEvidence(exception=name, message=first_line(exc)[len(name) + 2:],
                              line=job.line, traceback=excerpt(exc), how=_HOW.get(job.mode, ""))


# ---------------------------------------------------------------------- recipes
# The errors JAX raises on Python operations on traced values (see the confirm-mode notes).
_TRACE_ERRORS = frozenset({"TracerBoolConversionError", "ConcretizationTypeError",
                           "TracerIntegerConversionError", "TracerArrayConversionError",
                           "NonConcreteBooleanIndexError", "UnexpectedTracerError"})


def _is_trace_error(exc: BaseException) -> bool:
    return type(exc).__name__ in _TRACE_ERRORS or _SHAPE_ERROR in str(exc)


def is_expected(job: Job, exc: BaseException) -> bool:
    """The exception class the rule predicts, exactly (a subclass is another error: JAX's
    TracerBoolConversionError is a ConcretizationTypeError, but not the one `int(x)` raises)."""
    expected = job.confirm.get("expected")
    also = tuple(job.confirm.get("also_raises") or ()) + _ALSO_RAISES.get(job.f.get("code"), ())
    name = type(exc).__name__
    if name != expected and name not in also:
        # The rule's other predicted errors (`jax.nn.one_hot(x, n)` with a traced n raises a
        # ConcretizationTypeError, not the TypeError of `jnp.zeros(n)`) are the only others.
        return False
    # `jnp.zeros(n)` raises a plain TypeError: only its wording tells it from other TypeErrors
    # (a matmul of a synthesized scalar is a ValueError too, not a donated buffer's).
    wording = _WORDING.get(job.f.get("code"))
    # Wording tells apart only the generic classes; JAX's own classes say it by their name.
    if wording is not None and name in _GENERIC and not any(w in str(exc) for w in wording):
        return False
    return True


_GENERIC = ("TypeError", "ValueError", "IndexError", "RuntimeError")


def _applied_only(job: Job, ran: str) -> Verdict:
    """The flagged line applies a transform (`jax.grad(f)`, `jax.vmap(f, in_axes)`); JAX
    raises only when the result is called. The line running cleanly shows nothing."""
    return verdict(COULD_NOT_RUN, f"line {job.line} applies the transform; no call of the result "
                                  f"raised there",
                   f"{ran} without error, as applying a transform does; JAX raises "
                   f"{job.confirm.get('expected')} when the result is called, and no call at "
                   f"line {job.line} did")


def _writes_parameter(job: Job, sig) -> bool:
    """The flagged line assigns into a parameter (`o_ref[...] = x`). With arguments no call
    site passes, that parameter holds an invented JAX array, immutable by construction; the
    program may pass a Ref there (a Pallas kernel's), so only its own calls can show it."""
    import ast

    from jaxlint.confirm.verdicts.probe import statement

    stmt = statement(job.path, job.line)
    targets = stmt.targets if isinstance(stmt, ast.Assign) else \
        [stmt.target] if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) else []
    for t in targets:
        while isinstance(t, (ast.Subscript, ast.Attribute)):
            t = t.value
        if isinstance(t, ast.Name) and t.id in sig.parameters:
            return True
    return False


def confirm(job: Job) -> Verdict:
    expected = job.confirm.get("expected")
    if not expected:
        return verdict(COULD_NOT_RUN, "the rule gave no expected exception")
    if not job.f.get("function"):
        # Module-level code ran at import, which succeeded (a failure goes to import_verdict).
        watch = job.state["import_watch"]
        ran = watch.ran(job.line, job.end_line)
        failed = job.state.get("import_error")
        if failed is not None and raised_at(failed, job.path, job.line, job.end_line):
            if is_expected(job, failed):
                record = _record(job, failed)
                record.how = "while importing"
                return verdict(CONFIRMED, f"{type(failed).__name__} at line {job.line} during "
                                          f"import", record)
            return verdict(NOT_REPRODUCED, f"line {job.line} raised {type(failed).__name__}, not "
                                           f"the predicted {expected}", _record(job, failed))
        for exc in watch.raised:
            if is_expected(job, exc) and raised_at(exc, job.path, job.line, job.end_line):
                record = _record(job, exc)
                record.how = "while importing; the program caught it"
                return verdict(CONFIRMED, f"{type(exc).__name__} at line {job.line} during import",
                               record)
        if ran and job.confirm.get("on_call"):
            return _applied_only(job, f"it ran {ran} time(s) while importing")
        if ran and failed is not None and _on_stack(failed, job):
            # The import stopped under the line, in code it called: another error, elsewhere.
            frame = innermost_user_frame(failed)
            where = frame.where() if frame is not None else "inside a library"
            return verdict(NOT_REPRODUCED, f"line {job.line} ran; {type(failed).__name__} came "
                                           f"from {where}, not {expected} from line {job.line}",
                           _record(job, failed))
        if ran:
            return verdict(NOT_REPRODUCED, f"line {job.line} ran at import without error",
                           TraceErrorEvidence(line=job.line, how="while importing", note=(
                               f"module-level line {job.line} ran {ran} time(s) while importing; "
                               f"expected {expected}")))
        return verdict(COULD_NOT_RUN, f"module-level line {job.line} never ran",
                       "it did not run at import (an `if __name__ == \"__main__\":` block "
                       "does not run)")
    entry = job.entry()
    sig, is_method, static, jitted, _ = job.callables(entry)
    tried, ran_clean, last_err, mismatch = [], None, None, None
    for a in job.args_list(entry, sig, is_method, static, concrete=False):
        tried.append(a.shapes)
        with job.watch() as w:
            try:
                jitted.trace(*a.args, **a.kwargs)
                exc = None
            except Exception as e:  # noqa: BLE001 - user code raises anything
                exc = e
        if exc is not None:
            lines = frame_lines(exc, job.path, job.key)
            if is_expected(job, exc) and raised_at(exc, job.path, job.line, job.end_line, job.key) \
                    and not (a.invented and job.mode == "eager"
                             and (_writes_parameter(job, sig) or _NON_HASHABLE in str(exc))):
                # An invented JAX array where the program may pass a Ref or a Python number
                # (hashable, as a static argument needs) shows the invention, not the program.
                return verdict(CONFIRMED, f"{type(exc).__name__} at line {job.line}",
                               _record(job, exc), a.shapes)
            if mismatch is None and job.ran_line(w) and _is_trace_error(exc):
                # The line ran, and JAX raised a trace error, but not this one or not here.
                mismatch = (exc, a.shapes)
            last_err = (exc, a.shapes, lines)
        elif job.ran_line(w):
            ran_clean = ran_clean or a.shapes
    if ran_clean and job.confirm.get("on_call"):
        return _applied_only(job, f"it ran while tracing with {ran_clean}")
    if ran_clean:
        return verdict(NOT_REPRODUCED, f"traced without error; line {job.line} ran",
                       TraceErrorEvidence(line=job.line, how=_HOW.get(job.mode, ""), note=(
                           f"tried: {' | '.join(tried)}; expected {expected}")), ran_clean)
    if mismatch is not None:
        exc, shapes = mismatch
        frame = innermost_user_frame(exc)
        where = frame.where() if frame is not None else "inside JAX"
        return verdict(NOT_REPRODUCED, f"line {job.line} ran; {type(exc).__name__} came from "
                                       f"{where}, not {expected} from line {job.line}",
                       _record(job, exc), shapes)
    if last_err is not None:
        exc, shapes, lines = last_err
        where = f"at line {lines[-1]}" if lines else "outside the flagged function"
        summary = f"no argument shapes reached line {job.line}" if entry.direct else \
            f"the enclosing `{entry.code.co_name}` did not reach line {job.line}"
        return verdict(COULD_NOT_RUN, summary,
                       f"last error {where}: {first_line(exc)}; tried: {' | '.join(tried)}", shapes)
    return verdict(COULD_NOT_RUN, f"line {job.line} never ran", f"tried: {' | '.join(tried)}")


