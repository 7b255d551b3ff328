"""One recipe per confirm kind (worker side): run the flagged code and judge what JAX did.

Each recipe returns a verdict dict: verdict, summary, evidence, shapes.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import io
import os
import re
import sys
import time
import types
from typing import Any, Callable, Optional

import jax
import numpy as np

from jaxlint.confirm import synth
from jaxlint.jax_api import ERROR_WORDING
from jaxlint.confirm.target import (Entry, LineWatch, code_key, code_span, excerpt, find_entry,
                                    frame_lines, innermost_user_frame, raised_at)

CONFIRMED, NOT_REPRODUCED, COULD_NOT_RUN = "confirmed", "not reproduced", "could not run"
_TRACER = re.compile(r"Tracer|Traced<")
# `jnp.zeros(n)` raises a plain TypeError: only its wording makes it a trace error.
_SHAPE_ERROR = ERROR_WORDING["JAX207"][0]


def verdict(kind: str, summary: str, evidence: str = "", shapes: str = "") -> dict[str, Any]:
    return {"verdict": kind, "summary": summary, "evidence": evidence, "shapes": shapes}


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip()


class Job:
    """One finding to confirm, with what the worker knows about its file."""

    def __init__(self, module, path: str, finding: dict, target_code: Optional[types.CodeType],
                 state: dict):
        self.module = module
        self.path = path
        self.f = finding
        self.line = finding["line"]
        self.end_line = max(finding.get("end_line") or self.line, self.line)
        self.confirm = finding.get("confirm") or {}
        self.plan = finding.get("plan") or {}
        self.target = target_code
        self.key = code_key(target_code) if target_code is not None else None
        self.state = state  # compile counts and cache-miss records, shared with the worker
        self.instance_obj = None  # the `self` built for a method
        self.factory_args = ""  # how the flagged inner function was made

    # ------------------------------------------------------------------ calling
    def entry(self) -> Entry:
        if not self.f.get("function"):
            raise Unrunnable(f"line {self.line} is module-level code, outside any function")
        if self.key is None:
            raise Unrunnable(f"the function `{self.f.get('function')}` was not found in the source")
        entry = find_entry(self.module, self.path, self.key)
        if entry is None:
            raise Unrunnable(f"`{self.f.get('function')}` is not reachable from module level "
                             f"(neither it nor an enclosing function is a module attribute)")
        if not entry.direct and entry.owner is None and not entry.jitted:
            made = self._from_factory(entry)
            if made is not None:
                return made
        return entry

    def _from_factory(self, entry: Entry) -> Optional[Entry]:
        """`def make(): ... return inner`: call the factory and take the function it returns,
        so the flagged inner function is what runs (not the factory around it)."""
        try:
            sig = inspect.signature(entry.obj)
        except (TypeError, ValueError):
            return None
        fplan = self.fplan(entry)
        for a in self.given_args(entry, fplan, [], force=True):
            made = self._made(entry, a)
            if made is not None:
                return made
        for step in range(min(2, synth.steps_for(fplan))):
            try:
                a = synth.build(fplan, sig, step, True, set(), namespace=vars(self.module))
            except Exception:  # noqa: BLE001
                continue
            made = self._made(entry, a)
            if made is not None:
                return made
        return None

    def _made(self, entry: Entry, a) -> Optional[Entry]:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                out = entry.obj(*a.args, **a.kwargs)
        except Exception:  # noqa: BLE001 - not a factory, or not with these arguments
            return None
        code = _unwrap(out)
        if code is not None and code_key(code) == self.key:
            self.factory_args = f"returned by {entry.code.co_name}({a.shapes})"
            return Entry(out, None, None, True, code)
        return None

    def fplan(self, entry: Entry) -> dict:
        code = entry.code
        best = None
        for fp in self.plan.get("functions", []):
            if fp["qualname"].rsplit(".", 1)[-1] == code.co_name and fp["line"] >= code.co_firstlineno:
                if best is None or fp["line"] < best["line"]:
                    best = fp
        return best or {}

    def callables(self, entry: Entry):
        """(signature, skip_first, static names, jitted callable, eager callable)."""
        fplan = self.fplan(entry)
        static = {p["name"] for p in fplan.get("params", []) if p.get("static")}
        obj = entry.obj
        if isinstance(obj, staticmethod):
            obj = obj.__func__
        elif isinstance(obj, classmethod):
            raise Unrunnable("classmethods are not confirmed")
        info = getattr(obj, "_jit_info", None)
        if info is not None:
            sig = info.fun_signature or inspect.signature(obj)
            names = list(sig.parameters)
            static |= set(info.static_argnames) | {names[i] for i in info.static_argnums if i < len(names)}
        else:
            try:
                sig = inspect.signature(obj)
            except (TypeError, ValueError) as exc:
                raise Unrunnable(f"no signature: {exc}") from None
        is_method = entry.owner is not None and not isinstance(entry.obj, staticmethod) \
            and list(sig.parameters)[:1] == ["self"]
        if is_method:
            instance = self.instance_obj = self.instance(entry.owner)
            if entry.jitted:
                jitted = lambda *a, **k: obj(instance, *a, **k)  # noqa: E731
                jitted.trace = lambda *a, **k: obj.trace(instance, *a, **k)
                eager = jitted
            else:
                bound = getattr(instance, entry.attr)
                jitted = jax.jit(bound, static_argnames=tuple(static - {"self"}))
                eager = bound
        elif entry.jitted:
            jitted = eager = obj
        else:
            jitted = jax.jit(obj, static_argnames=tuple(static))
            eager = obj
        return sig, is_method, static, jitted, eager

    def instance(self, cls: type):
        try:
            return cls()
        except Exception as first:
            try:
                init = inspect.signature(cls)
                args = [{"int": 4, "float": 1.0, "bool": True, "str": "a"}.get(
                    getattr(p.annotation, "__name__", ""), 4)
                    for p in init.parameters.values()
                    if p.default is inspect.Parameter.empty
                    and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
                return cls(*args)
            except Exception:
                raise Unrunnable(f"cannot build `self`: {cls.__name__}() raised "
                                 f"{first_line(first)}") from None

    def args_list(self, entry: Entry, sig, is_method: bool, static: set, concrete: bool):
        """Argument sets, best first: the user's example call, then the calls the module
        itself makes (replayed), then the synthesized try-list (built lazily: concrete
        arrays compile eager ops)."""
        fplan = self.fplan(entry)
        seen, errors = set(), []
        for a in self.given_args(entry, fplan, errors):
            seen.add(a.shapes)
            yield a
        for step in range(synth.steps_for(fplan)):
            try:
                a = synth.build(fplan, sig, step, concrete, static, skip_first=is_method,
                                namespace=vars(self.module))
            except Exception as exc:  # noqa: BLE001 - a parameter we cannot build
                errors.append(str(exc))
                continue
            if a.shapes not in seen:
                seen.add(a.shapes)
                yield a
        if not seen:
            raise Unrunnable("no arguments could be built: " + "; ".join(errors[:1]))

    def given_args(self, entry: Entry, fplan: dict, errors: list, force: bool = False):
        """Arguments written in code: an example from [tool.jaxlint.confirm], or a call the
        module makes (`step(params, batch)` after `params = init(key)`), evaluated in the
        module's namespace. Only for the flagged function itself (not an enclosing one)."""
        if not entry.direct and not force:
            return
        qualname = (self.f.get("function") or "") if not force else entry.code.co_name
        example = (self.state.get("examples") or {}).get(qualname)
        if example:
            try:
                args, kwargs = eval(f"__jaxlint_args__({example})",
                                    {**vars(self.module), "__jaxlint_args__": _args})
                yield synth.Args(list(args), kwargs, set(), [f"example from pyproject: ({example})"])
            except Exception as exc:  # noqa: BLE001
                errors.append(f"the example `{example}` raised {first_line(exc)}")
        for call in fplan.get("calls", [])[:3]:
            ns = {**vars(self.module), "__jaxlint_args__": _args}
            for stmt in call["setup"]:
                try:
                    exec(stmt, ns)  # noqa: S102 - the module's own statements, replayed
                except Exception:  # noqa: BLE001 - a statement that needs what we lack
                    continue
            try:
                args, kwargs = eval(f"__jaxlint_args__({call['args']})", ns)
            except Exception as exc:  # noqa: BLE001
                errors.append(f"the call at line {call['line']} raised {first_line(exc)}")
                continue
            desc = [f"as called at line {call['line']}: ({_clip(call['args'])}) = "
                    + ", ".join(_describe_value(v) for v in [*args, *kwargs.values()])]
            yield synth.Args(list(args), kwargs, set(), desc)

    def first_args(self, entry: Entry, sig, is_method: bool, static: set):
        return next(iter(self.args_list(entry, sig, is_method, static, concrete=True)))

    def watch(self) -> LineWatch:
        return LineWatch(self.path)

    def ran_line(self, watch: LineWatch) -> int:
        return watch.ran(self.line, self.end_line, self.key)


def _unwrap(obj) -> Optional[types.CodeType]:
    try:
        fn = inspect.unwrap(obj)
    except Exception:  # noqa: BLE001
        return None
    return getattr(fn, "__code__", None)


def _args(*args, **kwargs):
    return args, kwargs


def _clip(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 3] + "..."


def _describe_value(v) -> str:
    leaves, tree = jax.tree_util.tree_flatten(v)
    if tree.num_leaves == 1 and not tree.children() and hasattr(v, "shape"):
        return f"{np.dtype(v.dtype).name}[{','.join(map(str, v.shape))}]"
    if not leaves:
        return _clip(repr(v), 30)
    return f"{type(v).__name__} of {len(leaves)} leaves"


class Unrunnable(Exception):
    """The finding cannot be run; the message is the reason."""


# ---------------------------------------------------------------------- recipes
# The errors JAX raises on Python operations on traced values (see the confirm-mode notes).
_TRACE_ERRORS = frozenset({"TracerBoolConversionError", "ConcretizationTypeError",
                           "TracerIntegerConversionError", "TracerArrayConversionError",
                           "NonConcreteBooleanIndexError", "UnexpectedTracerError"})


def _is_trace_error(exc: BaseException) -> bool:
    return type(exc).__name__ in _TRACE_ERRORS or _SHAPE_ERROR in str(exc)


def _is_expected(job: Job, exc: BaseException) -> bool:
    """The exception class the rule predicts, exactly (a subclass is another error: JAX's
    TracerBoolConversionError is a ConcretizationTypeError, but not the one `int(x)` raises)."""
    expected = job.confirm.get("expected")
    if type(exc).__name__ != expected:
        return False
    # `jnp.zeros(n)` raises a plain TypeError: only its wording tells it from other TypeErrors.
    wording = ERROR_WORDING.get(job.f.get("code"))
    if wording is not None and not any(w in str(exc) for w in wording):
        return False
    return True


def _applied_only(job: Job, ran: str) -> dict:
    """The flagged line applies a transform (`jax.grad(f)`, `jax.vmap(f, in_axes)`); JAX
    raises only when the result is called. The line running cleanly shows nothing."""
    return verdict(COULD_NOT_RUN, f"line {job.line} applies the transform; no call of the result "
                                  f"raised there",
                   f"{ran} without error, as applying a transform does; JAX raises "
                   f"{job.confirm.get('expected')} when the result is called, and no call at "
                   f"line {job.line} did")


def trace_error(job: Job) -> dict:
    expected = job.confirm.get("expected")
    if not expected:
        return verdict(COULD_NOT_RUN, "the rule gave no expected exception")
    if not job.f.get("function"):
        # Module-level code ran at import, which succeeded (a failure goes to import_verdict).
        watch = job.state["import_watch"]
        ran = watch.ran(job.line, job.end_line)
        for exc in watch.raised:
            if _is_expected(job, exc) and raised_at(exc, job.path, job.line, job.end_line):
                return verdict(CONFIRMED, f"{type(exc).__name__} at line {job.line} during import",
                               f"{first_line(exc)}; raised at line {job.line} while importing "
                               f"(the code caught it)")
        if ran and job.confirm.get("on_call"):
            return _applied_only(job, f"it ran {ran} time(s) while importing")
        if ran:
            return verdict(NOT_REPRODUCED, f"line {job.line} ran at import without error",
                           f"module-level line {job.line} ran {ran} time(s) while importing; "
                           f"expected {expected}")
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
            if _is_expected(job, exc) and raised_at(exc, job.path, job.line, job.end_line, job.key):
                return verdict(CONFIRMED, f"{type(exc).__name__} at line {job.line}",
                               f"{first_line(exc)}; raised at {excerpt(exc)}", a.shapes)
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
                       f"tried: {' | '.join(tried)}; expected {expected}", ran_clean)
    if mismatch is not None:
        exc, shapes = mismatch
        frame = innermost_user_frame(exc)
        where = frame.where() if frame is not None else "inside JAX"
        return verdict(NOT_REPRODUCED, f"line {job.line} ran; {type(exc).__name__} came from "
                                       f"{where}, not {expected} from line {job.line}",
                       f"{first_line(exc)}; raised at {excerpt(exc) or where}", shapes)
    if last_err is not None:
        exc, shapes, lines = last_err
        where = f"at line {lines[-1]}" if lines else "outside the flagged function"
        summary = f"no argument shapes reached line {job.line}" if entry.direct else \
            f"the enclosing `{entry.code.co_name}` did not reach line {job.line}"
        return verdict(COULD_NOT_RUN, summary,
                       f"last error {where}: {first_line(exc)}; tried: {' | '.join(tried)}", shapes)
    return verdict(COULD_NOT_RUN, f"line {job.line} never ran", f"tried: {' | '.join(tried)}")


def _leaves_equal(a, b) -> bool:
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape or not np.allclose(x, y, equal_nan=True):
            return False
    return True


def _short(value) -> str:
    leaves = jax.tree_util.tree_leaves(value)
    text = ", ".join(np.array2string(np.asarray(x), precision=4, threshold=6) for x in leaves[:2])
    return " ".join(text.split())[:80]


def _concrete_runs(job: Job, body: Callable[[Job, Any, Any, Any], Optional[dict]]) -> dict:
    """Try the concrete argument sets until `body` gives a verdict; errors are could-not-run."""
    entry = job.entry()
    sig, is_method, static, jitted, eager = job.callables(entry)
    last = None
    for a in job.args_list(entry, sig, is_method, static, concrete=True):
        try:
            result = body(job, a, jitted, eager)
        except Exception as exc:  # noqa: BLE001
            last = (exc, a.shapes)
            continue
        if result is not None:
            result["shapes"] = result.get("shapes") or a.shapes
            return result
    if last is not None:
        return verdict(COULD_NOT_RUN, f"the function raised {type(last[0]).__name__}",
                       f"{first_line(last[0])} (with {last[1]})", last[1])
    return verdict(COULD_NOT_RUN, f"line {job.line} never ran")


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


def print_at_trace(job: Job) -> dict:
    """The flagged statement runs once per trace: count how often its line runs in 3 jitted
    calls against 3 calls under jax.disable_jit(), and show what it wrote."""
    calls = 3

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
        tracer = " (a tracer, not a value)" if written and _TRACER.search(written[0]) else ""
        counts = f"line {job.line} ran {n_jit} time(s) in {calls} jitted calls, {n_eager} " \
                 f"without jit{shown}{tracer}"
        if here_eager:
            counts += f"; output lines: {total_jit} under jit, {total_eager} without"
            once = here_jit < here_eager and total_eager - total_jit >= here_eager - here_jit
        else:
            once = n_jit < n_eager
        if once:
            times = "once" if n_jit == 1 else f"{n_jit} times"
            return verdict(CONFIRMED, f"ran {times} in {calls} calls", counts)
        return verdict(NOT_REPRODUCED, f"ran on every call ({n_jit} times in {calls} calls)", counts)

    return _concrete_runs(job, body)


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value * 2 + 1
    if isinstance(value, (np.ndarray, jax.Array)):
        return value * 2 + 1
    raise Unrunnable(f"do not know how to change a global of type {type(value).__name__}")


def stale_global(job: Job) -> dict:
    name = job.confirm.get("global_name")
    if not name:
        return verdict(COULD_NOT_RUN, "the rule named no global")
    if not hasattr(job.module, name):
        raise Unrunnable(f"global `{name}` is not set after import")
    old = getattr(job.module, name)
    new = _changed(old)

    def body(job, a, jitted, eager):
        jax.clear_caches()
        setattr(job.module, name, old)
        try:
            with job.watch() as w:
                before = jitted(*a.args, **a.kwargs)
            if not job.ran_line(w):
                return None
            setattr(job.module, name, new)
            after = jitted(*a.args, **a.kwargs)
            with jax.disable_jit():
                fresh = eager(*a.args, **a.kwargs)
        finally:
            setattr(job.module, name, old)
        change = f"after {name} changed {_short(old)} -> {_short(new)}"
        if not _leaves_equal(after, fresh):
            same = " (unchanged)" if _leaves_equal(before, after) else ""
            return verdict(CONFIRMED, f"stale {name}: jit returned {_short(after)}, eager {_short(fresh)}",
                           f"{change}: jit returned {_short(after)}{same}, "
                           f"without jit {_short(fresh)}")
        return verdict(NOT_REPRODUCED, f"jit saw the new {name}",
                       f"{change}: jit and eager both returned {_short(after)}")

    return _concrete_runs(job, body)


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


def _made_by_target(job: Job, tracer) -> bool:
    """The tracer belongs to a trace of the flagged function (or of a body nested in it):
    its trace's debug info names the traced function and its def line."""
    try:
        info = tracer._trace.frame.debug_info.func_src_info  # "leaky at /path/mod.py:27"
    except Exception:  # noqa: BLE001 - private API moved: fall back to "new since our trace"
        return True
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
            return f"jax.checking_leaks(): Leaked trace while tracing {m.group('name')} at " \
                   f"{os.path.basename(m.group('file'))}:{m.group('line')}" + (
                       f"; {chain[-1]}" if chain else "")
    return None


def leak(job: Job) -> dict:
    """A tracer created by the flagged function and stored outside its trace: found in module
    globals or in `self` after a plain trace (cheap), or reported by JAX itself (the leak
    checker's "Leaked trace" while tracing the flagged function, an UnexpectedTracerError for
    a value created in it); else a module-level value that changes once per trace."""
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
                return verdict(CONFIRMED, "JAX reported the leaked tracer", said, a.shapes)
        if not job.ran_line(w):
            if failed is not None:
                last_err = (failed, a.shapes)
            continue
        found = [p for p, t in _tracers_in(_roots(job))
                 if id(t) not in before and _made_by_target(job, t)]
        if name:
            found = [p for p in found if re.match(re.escape(name) + r"\b", p)]
        if found:
            return verdict(CONFIRMED, f"tracer leaked into {found[0]}",
                           f"after tracing {job.f.get('function')}, {', '.join(found[:3])} holds "
                           f"a tracer made while tracing it", a.shapes)
        if failed is not None:
            last_err = (failed, a.shapes)  # the trace failed for another reason: proves nothing
            continue
        once = _runs_once(job, name, entry, sig, is_method, static, jitted, eager)
        if once is not None:
            return once
        jax.clear_caches()  # the leak checker fires only on a real trace
        checker = None
        try:
            with jax.checking_leaks():
                jitted.trace(*a.args, **a.kwargs)
        except Exception as exc:  # noqa: BLE001
            checker = exc
        said = _leak_error_here(job, checker) if checker is not None else None
        if said:
            return verdict(CONFIRMED, "jax.checking_leaks() reported a leaked tracer", said,
                           a.shapes)
        checker_text = first_line(checker) if checker is not None else "the leak checker was silent"
        return verdict(NOT_REPRODUCED, "no tracer leaked",
                       f"line {job.line} ran under jax.checking_leaks(); no module global "
                       f"{'`' + name + '` ' if name else ''}holds a new tracer ({checker_text})",
                       a.shapes)
    if last_err is not None:
        return verdict(COULD_NOT_RUN, f"the function raised {type(last_err[0]).__name__}",
                       f"{first_line(last_err[0])} (with {last_err[1]})", last_err[1])
    return verdict(COULD_NOT_RUN, f"line {job.line} never ran", f"tried: {' | '.join(tried)}")


def _runs_once(job: Job, name, entry, sig, is_method, static, jitted, eager) -> Optional[dict]:
    """`counter += 1` under jit: the global moves once per trace, not once per call."""
    value = getattr(job.module, name, None) if name else None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    calls = 3
    for a in job.args_list(entry, sig, is_method, static, concrete=True):
        start = getattr(job.module, name)
        try:
            jax.clear_caches()
            with contextlib.redirect_stdout(io.StringIO()):
                for _ in range(calls):
                    jax.block_until_ready(jitted(*a.args, **a.kwargs))
                after_jit = getattr(job.module, name)
                with jax.disable_jit():
                    for _ in range(calls):
                        eager(*a.args, **a.kwargs)
            after_eager = getattr(job.module, name)
        except Exception as exc:  # noqa: BLE001 - try the next argument set
            setattr(job.module, name, start)
            said = _leak_error_here(job, exc)
            if said:  # a later call used the tracer the flagged function leaked
                return verdict(CONFIRMED, "JAX reported the leaked tracer", said, a.shapes)
            continue
        d_jit, d_eager = after_jit - start, after_eager - after_jit
        setattr(job.module, name, start)
        text = f"`{name}` changed by {d_jit:g} in {calls} jitted calls, by {d_eager:g} in " \
               f"{calls} calls without jit"
        if d_jit != d_eager:
            return verdict(CONFIRMED, f"{name} moved once per trace, not per call", text, a.shapes)
        return verdict(NOT_REPRODUCED, f"{name} moved on every call", text, a.shapes)
    return None


def iterator(job: Job) -> dict:
    def body(job, a, jitted, eager):
        jax.clear_caches()
        with job.watch() as w:
            got = jitted(*a.args, **a.kwargs)
        if not job.ran_line(w):
            return None
        with jax.disable_jit():
            want = eager(*a.args, **a.kwargs)
        if not _leaves_equal(got, want):
            return verdict(CONFIRMED, f"jit returned {_short(got)}, eager {_short(want)}",
                           f"the value was fixed at trace time: jit gave {_short(got)}, "
                           f"jax.disable_jit() gave {_short(want)}")
        # A random draw or a clock can agree once by chance: call again. Baked in = every
        # jitted call returns the same value while the eager calls change.
        jit_again = [jitted(*a.args, **a.kwargs) for _ in range(3)]
        with jax.disable_jit():
            eager_again = [eager(*a.args, **a.kwargs) for _ in range(7)]
        if all(_leaves_equal(got, g) for g in jit_again) \
                and not all(_leaves_equal(want, e) for e in eager_again):
            return verdict(CONFIRMED, f"jit returned {_short(got)} on every call",
                           f"the value was fixed at trace time: 4 jitted calls all returned "
                           f"{_short(got)}; 8 calls under jax.disable_jit() gave different values")
        return verdict(NOT_REPRODUCED, "jit and eager agree", f"both returned {_short(got)}")

    return _concrete_runs(job, body)


_MISS_AT = re.compile(r"TRACING CACHE MISS at (?P<file>.+?):(?P<line>\d+):\d+")
_MISSED_FN = re.compile(r"never seen function:\s+(\S+) id=|for (\S+) defined at")


def _misses_at(job: Job, records: list[str]) -> list[str]:
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


def recompile(job: Job) -> dict:
    """Count trace-cache misses attributed to the flagged line while the code runs as written,
    and the distinct cache keys (argument signatures) the call at the line used."""
    state = job.state
    records = list(state["import_misses"])
    ran = state["import_watch"].ran(job.line, job.end_line, job.key)
    how = "at import"
    shapes = ""
    recorder = None
    if ran < 2 and job.key is not None and job.f.get("function"):
        entry = job.entry()
        sig, is_method, static, _, eager = job.callables(entry)
        how = f"calling {job.f.get('function')} twice"
        last = None
        for a in job.args_list(entry, sig, is_method, static, concrete=True):
            jax.clear_caches()  # count the compiles of this run, not of the import
            start = len(state["misses"])
            state["budget"], state["spent"] = state["budget_total"], 0
            recorder = _CallRecorder(job)
            try:
                with job.watch() as w, recorder:
                    for _ in range(2):  # one compile is intended for two calls with equal shapes
                        eager(*a.args, **a.kwargs)
            except CompileBudget:
                pass
            except Exception as exc:  # noqa: BLE001 - wrong guess of argument shapes
                last = (exc, a.shapes)
                continue
            # Only this run's misses: the import's were before jax.clear_caches().
            records = state["misses"][start:]
            ran, shapes, last = job.ran_line(w), a.shapes, None
            break
        if last is not None:
            return verdict(COULD_NOT_RUN, f"the function raised {type(last[0]).__name__}",
                           f"{first_line(last[0])} (with {last[1]})", last[1])
    misses = _misses_at(job, records)
    # The second miss shows what changed between the first two calls at the line.
    evidence = misses[min(1, len(misses) - 1)].strip() if misses else ""
    if ran == 0:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran", f"tried {how}", shapes)
    n = len(misses)
    calls = recorder.calls if recorder is not None and recorder.name else []
    distinct = list(dict.fromkeys(calls))
    if n >= 2:
        return verdict(CONFIRMED, f"{n} compiles for {max(ran, len(calls))} calls", evidence, shapes)
    if len(distinct) >= 2 and job.confirm.get("kind") == "recompile":
        shown = " | ".join(_varying([list(d) for d in distinct])[:4]) + (
            " | ..." if len(distinct) > 4 else "")
        return verdict(CONFIRMED, f"{len(distinct)} compiled versions for {len(calls)} calls",
                       f"line {job.line} called {recorder.name} with {len(distinct)} distinct "
                       f"signatures, each its own cache entry and compile ({n} compiled at this "
                       f"line, the rest earlier in the same run): {shown}"
                       + (f"; {evidence}" if evidence else ""), shapes)
    seen = f"; the call used {len(distinct)} signature(s): " \
        f"{' | '.join(', '.join(d) for d in distinct[:2])}" if distinct else ""
    if n == 0:
        # Zero compiles proves nothing: the call never compiled here (or a warm cache served it).
        return verdict(COULD_NOT_RUN, f"no compile at line {job.line}",
                       f"ran {how}; the jitted call at line {job.line} never compiled (a cache "
                       f"warmed earlier served it, or the arguments did not vary){seen}", shapes)
    return verdict(NOT_REPRODUCED, f"{n} compile for {max(ran, len(calls))} calls",
                   f"ran {how}; {evidence or 'no cache miss at this line after the first'}{seen}",
                   shapes)


class _JitTimer:
    """Patches jax.jit while the flagged function runs: each jax.jit(...) made at the flagged
    line is timed, and so is each call of what it returned. With `reuse`, the same function
    (and options) gets the jitted object made the first time: what the fix would do."""

    def __init__(self, job: Job, reuse: bool):
        self.job, self.reuse = job, reuse
        self.real = os.path.realpath(job.path)
        self.create: list[float] = []
        self.calls: list[float] = []
        self.cache: dict = {}
        self.original = jax.jit
        self.patched: list[tuple[Any, str]] = []

    def _at_line(self) -> bool:
        frame = sys._getframe(2)
        return os.path.realpath(frame.f_code.co_filename) == self.real \
            and self.job.line <= frame.f_lineno <= self.job.end_line

    def jit(self, fun, *args, **kwargs):
        if not self._at_line():
            return self.original(fun, *args, **kwargs)
        t0 = time.perf_counter()
        if self.reuse:
            key = (id(fun), repr(args), repr(sorted(kwargs.items())))
            jitted = self.cache.get(key)
            if jitted is None:
                jitted = self.cache[key] = self.original(fun, *args, **kwargs)
        else:
            jitted = self.original(fun, *args, **kwargs)
        self.create.append(time.perf_counter() - t0)
        calls = self.calls

        def timed(*a, **k):
            t1 = time.perf_counter()
            out = jitted(*a, **k)
            calls.append(time.perf_counter() - t1)
            return out

        return timed

    def __enter__(self):
        jax.jit = self.jit
        for name, value in list(vars(self.job.module).items()):
            if value is self.original:
                setattr(self.job.module, name, self.jit)
                self.patched.append((self.job.module, name))
        return self

    def __exit__(self, *exc):
        jax.jit = self.original
        for mod, name in self.patched:
            setattr(mod, name, self.original)
        return False

    def cost(self) -> Optional[float]:
        """Median seconds per execution of the line, the first (compiling) one left out."""
        create, calls = self.create[1:], self.calls[1:]
        if not create:
            return None
        med = lambda v: sorted(v)[len(v) // 2] if v else 0.0  # noqa: E731
        return med(create) + med(calls)


def overhead(job: Job) -> dict:
    """JAX401: measure it. Run the flagged function as written, timing each jax.jit(...) made
    at the flagged line and each call of it; run it again with one jitted object reused.
    Confirmed when the line costs measurably more as written."""
    if job.key is None or not job.f.get("function"):
        return verdict(COULD_NOT_RUN, "overhead is measured inside a function only",
                       f"line {job.line} is not in a function confirm mode can call")
    entry = job.entry()
    sig, is_method, static, _, eager = job.callables(entry)
    last = None
    for a in job.args_list(entry, sig, is_method, static, concrete=True):
        timers = []
        try:
            for reuse in (False, True) * 3:
                timer = _JitTimer(job, reuse)
                job.state["budget"], job.state["spent"] = job.state["budget_total"], 0  # a full budget per run
                try:
                    with timer, contextlib.redirect_stdout(io.StringIO()):
                        eager(*a.args, **a.kwargs)
                except CompileBudget:
                    pass  # another line recompiles; the samples so far still count
                timers.append(timer)
        except Exception as exc:  # noqa: BLE001 - wrong guess of argument shapes
            last = (exc, a.shapes)
            continue
        written = [t.cost() for t in timers[0::2]]
        reused = [t.cost() for t in timers[1::2]]
        runs = len(timers[0].create)
        if any(c is None for c in written + reused):
            if runs == 0:
                return verdict(COULD_NOT_RUN, f"no jax.jit(...) ran at line {job.line}",
                               f"called {job.f.get('function')}; line {job.line} never made a "
                               f"jitted function", a.shapes)
            return verdict(COULD_NOT_RUN, f"line {job.line} ran {runs} time(s): too few to time",
                           "the first run compiles; the overhead needs two runs or more", a.shapes)
        w, r = sorted(written)[1], sorted(reused)[1]  # medians of three runs each
        text = (f"line {job.line} ran {runs} times per call of {job.f.get('function')}; "
                f"jax.jit(...) plus its call took {w * 1e6:.0f} us (median of 3 runs) as written, "
                f"{r * 1e6:.0f} us with one jitted object reused (runs: "
                f"{', '.join(f'{c * 1e6:.0f}' for c in written)} us vs "
                f"{', '.join(f'{c * 1e6:.0f}' for c in reused)} us)")
        if w > 1.5 * r and w - r > 5e-6:
            return verdict(CONFIRMED, f"overhead measured: {w * 1e6:.0f} us vs {r * 1e6:.0f} us "
                                      f"per run of line {job.line}", text, a.shapes)
        return verdict(NOT_REPRODUCED, f"no overhead measured at line {job.line}", text, a.shapes)
    if last is not None:
        return verdict(COULD_NOT_RUN, f"the function raised {type(last[0]).__name__}",
                       f"{first_line(last[0])} (with {last[1]})", last[1])
    return verdict(COULD_NOT_RUN, f"line {job.line} never ran")


class CompileBudget(BaseException):
    """Raised from the compile listener to stop a runaway loop; passes `except Exception`."""


def prng(job: Job) -> dict:
    state = job.state
    draws = [d for d in state["import_draws"]]
    how, shapes = "at import", ""
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
            same = ", giving identical values" if other["fn"] == d["fn"] and \
                other["value"] == d["value"] else ""
            where = f"line {d['line']} drew twice" if other["line"] == d["line"] else \
                f"line {other['line']} and line {d['line']} drew"
            return verdict(CONFIRMED, f"{where} with the same key{same}",
                           f"{other['fn']} at line {other['line']} -> {other['value']}; "
                           f"{d['fn']} at line {d['line']} -> {d['value']} (same key {d['key']})",
                           shapes)
    at = " and ".join(f"line {n}" for n in sorted(sites | {job.line}))
    return verdict(NOT_REPRODUCED, "the flagged draws used different keys",
                   f"{len(draws)} draws ({how}); no two draws at {at} share a key", shapes)


def _resolve(dotted: str):
    """(True, None) when `dotted` exists in the installed jax; else (False, what is missing, error)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        modname = ".".join(parts[:i])
        try:
            obj = importlib.import_module(modname)
        except ImportError:
            continue
        except Exception as exc:  # noqa: BLE001 - a module that fails to import is not there
            return False, modname, exc
        for j in range(i, len(parts)):
            try:
                obj = getattr(obj, parts[j])
            except AttributeError as exc:
                return False, ".".join(parts[:j + 1]), exc
        return True, None, None
    return False, parts[0], None


def _module_exists(name: str) -> bool:
    if name in sys.modules:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _import_error_at(path: Optional[str], line: int, end_line: int,
                     exc: Optional[BaseException]) -> bool:
    """The import failed with AttributeError / ImportError in the file at the flagged line."""
    if path is None or not isinstance(exc, (AttributeError, ImportError)):
        return False
    return raised_at(exc, path, line, end_line)


def removed_api(path: Optional[str], finding: dict, import_error: Optional[BaseException]) -> dict:
    """A removed JAX name: confirmed when the installed jax lacks it (the failure is the bug)."""
    confirm = finding.get("confirm") or {}
    line = finding["line"]
    end_line = max(finding.get("end_line") or line, line)
    version = f"jax {jax.__version__}"
    failed_here = _import_error_at(path, line, end_line, import_error)
    import_note = f"; importing the file raised {first_line(import_error)} at line {line}" \
        if failed_here else ""
    module = confirm.get("removed_module")
    name = confirm.get("removed")
    if module:
        if not _module_exists(module):
            return verdict(CONFIRMED, f"{version} has no module {module}",
                           f"importlib.util.find_spec({module!r}) is None in {version}{import_note}")
        return verdict(NOT_REPRODUCED, f"{version} still has module {module}",
                       f"importlib.util.find_spec({module!r}) found it in {version}")
    if name:
        present, missing, exc = _resolve(name)
        if not present:
            what = name if missing == name else f"{missing} (so no {name})"
            jax_says = f"; getattr says {first_line(exc)}" if exc is not None else ""
            return verdict(CONFIRMED, f"{version} has no {name}",
                           f"{version} has no {what}{jax_says}{import_note}")
        return verdict(NOT_REPRODUCED, f"{version} still has {name}",
                       f"{name} resolves in the installed {version}")
    if failed_here:
        return verdict(CONFIRMED, f"{type(import_error).__name__} at line {line}",
                       first_line(import_error))
    return verdict(COULD_NOT_RUN, "the rule named no removed API",
                   "the finding carries neither `removed` nor `removed_module`")


def timing(job: Job) -> dict:
    return verdict(COULD_NOT_RUN, "timing findings are not confirmed",
                   "a timing measures wall-clock time, which varies from run to run and with the "
                   "device; confirm mode does not re-time code, so this finding is not checked")


RECIPES = {
    "trace-error": trace_error,
    "print": print_at_trace,
    "stale-global": stale_global,
    "leak": leak,
    "iterator": iterator,
    "recompile": recompile,
    "overhead": overhead,
    "prng": prng,
    "timing": timing,
    "removed-api": lambda job: removed_api(job.path, job.f, None),
}


# Exceptions that are themselves the predicted problem when the flagged line raises them.
_IMPORT_EVIDENCE = {
    "leak": ("UnexpectedTracerError",),
    "removed-api": ("AttributeError", "ImportError", "ModuleNotFoundError"),
}


def import_verdict(path: str, finding: dict, target: Optional[types.CodeType],
                   exc: BaseException, state: dict) -> dict:
    """The import is a run too. An error raised during import at the flagged line (its
    innermost user frame) confirms the finding when it is the predicted error; an error
    elsewhere means the flagged code could not run."""
    kind = (finding.get("confirm") or {}).get("kind")
    line = finding["line"]
    end_line = max(finding.get("end_line") or line, line)
    key = code_key(target) if target is not None else None
    if isinstance(exc, CompileBudget):
        if kind in ("recompile", "overhead"):
            job = Job(None, path, finding, target, state)
            misses = _misses_at(job, state["misses"])
            if len(misses) >= 2 and kind == "recompile":
                return verdict(CONFIRMED, f"{len(misses)} compiles at line {line} during import",
                               f"the import was stopped by the compile budget ({exc}); "
                               f"{len(misses)} cache misses were at line {line}: "
                               f"{misses[min(1, len(misses) - 1)].strip()}")
        where = _last_miss_line(path, state["misses"])
        return verdict(COULD_NOT_RUN, "import stopped by the compile budget",
                       f"{exc} while importing, "
                       + (f"the compiles were at line {where}, not line {line}" if where
                          and not line <= where <= end_line else "before the flagged code ran"))
    at_line = raised_at(exc, path, line, end_line, key) or (
        key is not None and raised_at(exc, path, line, end_line))
    name = type(exc).__name__
    shown = f"{first_line(exc)}; traceback: {excerpt(exc)}"
    if kind == "removed-api":
        return removed_api(path, finding, exc)
    if at_line:
        expected = (finding.get("confirm") or {}).get("expected")
        wanted = _IMPORT_EVIDENCE.get(kind, ())
        if kind == "trace-error" and expected:
            fake = Job(None, path, finding, target, state)
            ok = _is_expected(fake, exc)
        else:
            ok = name in wanted
        if ok:
            return verdict(CONFIRMED, f"{name} at line {line} during import", shown)
        return verdict(COULD_NOT_RUN, f"import failed at line {line} with {name}",
                       f"{shown}; the rule predicts "
                       f"{expected or ' or '.join(wanted) or 'another failure'}")
    frame = innermost_user_frame(exc)
    where = f" at {frame.where()}" if frame is not None else ""
    return verdict(COULD_NOT_RUN, f"import failed{where}", shown)


def _last_miss_line(path: str, records: list[str]) -> Optional[int]:
    real = os.path.realpath(path)
    for rec in reversed(records):
        m = _MISS_AT.search(rec)
        if m and os.path.realpath(m.group("file")) == real:
            return int(m.group("line"))
    return None
