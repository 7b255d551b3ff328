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
import types
from typing import Any, Callable, Optional

import jax
import numpy as np

from jaxlint.confirm import synth
from jaxlint.confirm.target import Entry, LineWatch, code_key, find_entry, frame_lines

CONFIRMED, NOT_REPRODUCED, COULD_NOT_RUN = "confirmed", "not reproduced", "could not run"
_TRACER = re.compile(r"Tracer|Traced<")
# The one error matched on text: `jnp.zeros(n)` raises a plain TypeError with this wording.
_SHAPE_ERROR = "Shapes must be 1D sequences of concrete values of integer type"


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

    # ------------------------------------------------------------------ calling
    def entry(self) -> Entry:
        if self.key is None:
            raise Unrunnable(f"the function `{self.f.get('function')}` was not found in the source")
        entry = find_entry(self.module, self.path, self.key)
        if entry is None:
            raise Unrunnable(f"`{self.f.get('function')}` is not reachable from module level "
                             f"(neither it nor an enclosing function is a module attribute)")
        return entry

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
            instance = self.instance(entry.owner)
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
        """Argument sets of the try-list, built lazily (concrete ones compile eager ops)."""
        fplan = self.fplan(entry)
        seen, errors = set(), []
        for step in range(synth.steps_for(fplan)):
            try:
                a = synth.build(fplan, sig, step, concrete, static, skip_first=is_method)
            except Exception as exc:  # noqa: BLE001 - a parameter we cannot build
                errors.append(str(exc))
                continue
            if a.shapes not in seen:
                seen.add(a.shapes)
                yield a
        if not seen:
            raise Unrunnable("no arguments could be built: " + "; ".join(errors[:1]))

    def first_args(self, entry: Entry, sig, is_method: bool, static: set):
        return next(iter(self.args_list(entry, sig, is_method, static, concrete=True)))

    def watch(self) -> LineWatch:
        return LineWatch(self.path)

    def ran_line(self, watch: LineWatch) -> int:
        return watch.ran(self.line, self.end_line, self.key)


class Unrunnable(Exception):
    """The finding cannot be run; the message is the reason."""


# ---------------------------------------------------------------------- recipes
def trace_error(job: Job) -> dict:
    expected = job.confirm.get("expected")
    if not expected:
        return verdict(COULD_NOT_RUN, "the rule gave no expected exception")
    entry = job.entry()
    sig, is_method, static, jitted, _ = job.callables(entry)
    tried, ran_clean, last_err = [], None, None
    for a in job.args_list(entry, sig, is_method, static, concrete=False):
        tried.append(a.shapes)
        with job.watch() as w:
            try:
                jitted.trace(*a.args, **a.kwargs)
                exc = None
            except Exception as e:  # noqa: BLE001 - user code raises anything
                exc = e
        if exc is not None:
            names = [c.__name__ for c in type(exc).__mro__]
            lines = frame_lines(exc, job.path, job.key)
            at_line = any(job.line <= n <= job.end_line for n in lines)
            class_ok = expected in names
            if expected == "TypeError" and type(exc) is TypeError and _SHAPE_ERROR not in str(exc) \
                    and job.confirm.get("shape_error"):
                class_ok = False
            if class_ok and at_line:
                return verdict(CONFIRMED, f"{type(exc).__name__} at line {job.line}",
                               first_line(exc), a.shapes)
            last_err = (exc, a.shapes, lines)
        elif job.ran_line(w):
            ran_clean = ran_clean or a.shapes
    if ran_clean:
        return verdict(NOT_REPRODUCED, f"traced without error; line {job.line} ran",
                       f"tried: {' | '.join(tried)}; expected {expected}", ran_clean)
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


def _tracers_in_globals(module) -> list[str]:
    out = []
    tracer = jax.core.Tracer

    def look(value, where, depth):
        if isinstance(value, tracer):
            out.append(where)
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

    for name, value in list(vars(module).items()):
        if not name.startswith("__"):
            look(value, name, 3)
    return out


def leak(job: Job) -> dict:
    """A tracer stored outside the trace, found by scanning module globals after a plain trace
    (cheap); else a module-level value that changes once per trace instead of once per call;
    else jax.checking_leaks() (slow when something leaked: it searches reference chains)."""
    entry = job.entry()
    sig, is_method, static, jitted, eager = job.callables(entry)
    name = job.confirm.get("global_name")
    tried, last_err = [], None
    for a in job.args_list(entry, sig, is_method, static, concrete=False):
        tried.append(a.shapes)
        before = set(_tracers_in_globals(job.module))
        jax.clear_caches()  # a cached trace runs nothing
        with job.watch() as w:
            try:
                jitted.trace(*a.args, **a.kwargs)
                failed = None
            except Exception as exc:  # noqa: BLE001
                failed = exc
        if not job.ran_line(w):
            if failed is not None:
                last_err = (failed, a.shapes)
            continue
        found = [p for p in _tracers_in_globals(job.module) if p not in before]
        if name:
            found = [p for p in found if re.match(re.escape(name) + r"\b", p)]
        if found:
            return verdict(CONFIRMED, f"tracer leaked into {found[0]}",
                           f"after tracing, {', '.join(found[:3])} holds a tracer", a.shapes)
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
        checker_text = first_line(checker) if checker is not None else "the leak checker was silent"
        if checker is not None and name and re.search(r"\." + re.escape(name) + r"\b", str(checker)):
            return verdict(CONFIRMED, "jax.checking_leaks() reported a leaked tracer", checker_text,
                           a.shapes)
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
        except Exception:  # noqa: BLE001 - try the next argument set
            setattr(job.module, name, start)
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
_DEFINED_AT = re.compile(r"defined at (?P<file>.+?):(?P<line>\d+)")


def _misses_at(job: Job, records: list[str]) -> list[str]:
    real = os.path.realpath(job.path)
    out = []
    for rec in records:
        for rx in (_MISS_AT, _DEFINED_AT):
            m = rx.search(rec)
            if m and os.path.realpath(m.group("file")) == real \
                    and job.line <= int(m.group("line")) <= job.end_line:
                out.append(rec)
                break
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
            state["budget"] = state["budget_total"]
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
            records += state["misses"][start:]
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
    if job.confirm.get("kind") == "overhead" and n == 0:
        return verdict(COULD_NOT_RUN, "no jit compiled at this line",
                       f"ran {how}; the overhead recipe measures a jit wrapper re-created per call",
                       shapes)
    if job.confirm.get("kind") == "overhead" and ran >= 2:
        return verdict(CONFIRMED, f"overhead: {n} compile, {ran} x wrapper cost",
                       f"jax.jit(...) re-created {ran} times ({how}); the trace cache is keyed on "
                       f"the function, so it compiled {n} time(s) but paid the wrapper cost on "
                       f"every call", shapes)
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
    for d in here:
        for other in draws:
            if other is d or other["key"] != d["key"]:
                continue
            same = ", giving identical values" if other["fn"] == d["fn"] and \
                other["value"] == d["value"] else ""
            where = f"line {d['line']} drew twice" if other["line"] == d["line"] else \
                f"lines {other['line']} and {d['line']} drew"
            return verdict(CONFIRMED, f"{where} with the same key{same}",
                           f"{other['fn']} at line {other['line']} -> {other['value']}; "
                           f"{d['fn']} at line {d['line']} -> {d['value']} (same key {d['key']})",
                           shapes)
    return verdict(NOT_REPRODUCED, "every draw used a different key",
                   f"{len(draws)} draws ({how}); none shares its key with the draw at line {job.line}",
                   shapes)


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
    real = os.path.realpath(path)
    tb = exc.__traceback__
    while tb is not None:
        if os.path.realpath(tb.tb_frame.f_code.co_filename) == real \
                and line <= tb.tb_lineno <= end_line:
            return True
        tb = tb.tb_next
    return False


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
    "overhead": recompile,
    "prng": prng,
    "timing": timing,
    "removed-api": lambda job: removed_api(job.path, job.f, None),
}
