"""jax.jit, watched while the program runs (patched in the file's fork, before its import).

It returns JAX's own jitted object, wrapped only where a finding needs it:
- the jitted functions made from the file's functions, when the file has a stale-global finding
  (JAX103): each call the program makes is recorded with the result the same call gives under
  jax.disable_jit() at that moment, and the globals the finding names as they were then;
- the jitted objects made at a JAX401 / JAX402 line: each is recorded with what it wraps
  (`Made.key`: equal for two lambdas with the same code and closure, two partials with the same
  function and arguments, the same bound method), and its calls are counted;
- the jitted functions of the file, when it has a trace-time print or value finding (JAX101,
  JAX104, JAX105): their calls are recorded (never compared), so that a recipe calls a function
  no more often than the program did.
Nothing is rebound, re-run or called twice: the program's own calls pass straight through.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import io
import os
import sys
import weakref
from collections import Counter
from typing import Any, Optional

import jax

from jaxlint.confirm.verdicts.base import first_line
from jaxlint.jax_api import DIFFERENTIATING, FORWARD_ONLY_TRANSFORMS

MAX_RECORDS = 200
# lax control flow that compiles itself when called outside jit, and the names it compiles
# under (jax 0.10.2: fori_loop and map compile `jit(scan)`, or `jit(while)`; switch `jit(cond)`).
LAX_CALLS = ("while_loop", "fori_loop", "scan", "map", "cond", "switch")
LAX_COMPILES = ("jit(while)", "jit(scan)", "jit(cond)")


@dataclasses.dataclass
class Call:
    """One call of a jitted function of the file, made by the program itself."""

    code: Any  # the wrapped function's code object
    line: int  # the caller's line
    globals_now: dict  # the globals the findings name, as they were before the call
    jit_result: Any
    eager_result: Any
    error: str = ""
    globals_after: dict = dataclasses.field(default_factory=dict)
    args: tuple = ()  # what the program passed (kept for the functions of JAX5xx findings)
    kwargs: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Made:
    """One jax.jit(...) evaluated at a watched line."""

    line: int
    key: str  # what it wraps, compared between the objects made at one line
    name: str
    calls: int = 0
    # An eager lax loop or cond (one call each): the compiles of its own `jit(while)` /
    # `jit(scan)` / `jit(cond)` during the call. None for a jax.jit object, whose compiles are
    # counted by its name.
    compiles: Optional[int] = None
    fresh: bool = True  # an eager lax call: one of its functions was a new object


# Objects named by identity in a key (`self@1a2b`): kept alive for the confirm run, so that
# CPython cannot give a later object the address of a collected one and make two different
# objects (a member per epoch) look like the same computation.
_NAMED_BY_ID: list = []


def _by_id(obj) -> str:
    if len(_NAMED_BY_ID) < 10_000:  # bounded: a loop making millions keeps the first ones
        _NAMED_BY_ID.append(obj)
    return f"{type(obj).__name__}@{id(obj):x}"


def describe(fun, depth: int = 3, by_shape: bool = False) -> str:
    """What a callable computes, as far as a cache could tell: code and bound values (bound
    arrays by identity, or `by_shape`)."""
    if depth <= 0:
        return type(fun).__name__
    if isinstance(fun, functools.partial):
        return f"partial({describe(fun.func, depth - 1, by_shape)}, " \
               f"{_values(fun.args, by_shape)}, {_values(sorted(fun.keywords.items()), by_shape)})"
    if inspect.ismethod(fun):
        return f"method({describe(fun.__func__, depth - 1, by_shape)}, self={_by_id(fun.__self__)})"
    code = getattr(fun, "__code__", None)
    if code is None:
        inner = getattr(fun, "__wrapped__", None)
        return f"wrapped({describe(inner, depth - 1, by_shape)})" if inner is not None else \
            _by_id(fun)
    cells = [c.cell_contents for c in (fun.__closure__ or ()) if _filled(c)]
    return f"{code.co_filename}:{code.co_firstlineno}:{code.co_name}(" \
           f"{_values(cells, by_shape)}; {_values(fun.__defaults__ or (), by_shape)})"


def _lax_key(args, kwargs) -> str:
    """What an eager lax control-flow call computes, as its compile cache could tell: the code
    and bound values of its functions, with arrays by shape (a closed-over array is an operand
    of the compiled loop, not part of it), and the shapes of its operands."""
    parts = []
    for v in (*args, *(x for _, x in sorted(kwargs.items()))):
        funs = v if isinstance(v, (list, tuple)) and v and all(callable(f) for f in v) else [v]
        if all(callable(f) for f in funs):
            parts += [describe(f, by_shape=True) for f in funs]
            continue
        parts.append(",".join(_aval(x) for x in jax.tree_util.tree_leaves(v)))
    return "; ".join(parts)


def _aval(x) -> str:
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return f"{x.dtype}{list(x.shape)}"
    return repr(x) if isinstance(x, (int, float, bool, str, type(None))) else type(x).__name__


def _name(fun) -> str:
    """The name JAX compiles it under (`jit(name)`)."""
    for _ in range(4):
        if isinstance(fun, functools.partial):
            fun = fun.func
        elif inspect.ismethod(fun):
            fun = fun.__func__
        else:
            break
    return getattr(fun, "__name__", type(fun).__name__)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _values(values, by_shape: bool = False) -> str:
    out = []
    for v in values:
        if isinstance(v, (int, float, str, bool, type(None))):
            out.append(repr(v))
        elif isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str):
            out.append(f"{v[0]}={_values([v[1]], by_shape)}")
        elif callable(v):
            out.append(describe(v, 1, by_shape))
        elif by_shape and hasattr(v, "shape") and hasattr(v, "dtype"):
            out.append(_aval(v))
        else:
            out.append(_by_id(v))
    return ", ".join(out)


class JitWatch:
    def __init__(self, path: str, stale_names: set, lines: set, leak_names: set = frozenset(),
                 attr_names: set = frozenset(), arg_functions: set = frozenset(),
                 count_calls: bool = False):
        self.real = os.path.realpath(path)
        self.stale_names = stale_names
        self.leak_names = leak_names  # JAX102's globals: watched, never compared eagerly
        self.attr_names = attr_names  # JAX102's `self.<attr>`, read on a jitted bound method
        # JAX5xx's jitted functions: their calls' arguments are kept, so that the draws can be
        # shown with the arguments the program passed (under jit the keys are tracers).
        self.arg_functions = arg_functions
        self.count_calls = count_calls  # JAX101/104/105: the program's calls, recorded only
        # JAX601: the results of every jitted call of the file's functions, in order, for the
        # timing probes (None: not kept).
        self.outputs: Optional[list] = None
        # JAX702's clock readings: each jitted call's Python float arguments and its result,
        # in order (None: not kept).
        self.floats: Optional[list] = None
        self.lines = lines  # JAX401 / JAX402 lines
        self.imported: Optional[int] = None  # len(self.made) once the program's import ended
        self.calls: list[Call] = []
        self.made: list[Made] = []
        self.lax_seen: dict = {}  # (line, _lax_key) -> weak references to the functions passed
        self.original = jax.jit

    def _caller_line(self, depth: int) -> Optional[int]:
        frame = sys._getframe(depth)
        for _ in range(4):  # jax.jit(f) directly, or through a decorator factory
            if frame is None:
                return None
            if os.path.realpath(frame.f_code.co_filename) == self.real:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def jit(self, fun=None, *args, **kwargs):
        if fun is None:  # @jax.jit(static_argnums=...)
            return lambda f: self.jit(f, *args, **kwargs)
        jitted = self.original(fun, *args, **kwargs)
        line = self._caller_line(2)
        made = None
        if line is not None and line in self.lines and len(self.made) < MAX_RECORDS:
            made = Made(line, describe(fun), _name(fun))
            self.made.append(made)
        code = getattr(inspect.unwrap(fun), "__code__", None) if callable(fun) else None
        stale = (self.stale_names or self.leak_names or self.count_calls
                 or self.attr_names and inspect.ismethod(fun)
                 or code is not None and code.co_name in self.arg_functions
                 or self.outputs is not None or self.floats is not None) \
            and code is not None and os.path.realpath(code.co_filename) == self.real
        if made is None and not stale:
            return jitted
        return _Watched(self, jitted, fun, code, made, bool(stale))

    def globals_of(self, rec: "_Watched") -> dict:
        glb = getattr(inspect.unwrap(rec.fun), "__globals__", {})
        out = {n: glb.get(n) for n in self.stale_names | self.leak_names if n in glb}
        for name in self.stale_names:
            obj, _, attr = name.partition(".")  # JAX103's `obj.attr` of a module-level object
            if attr and obj in glb and hasattr(glb[obj], attr):
                out[name] = getattr(glb[obj], attr)
        owner = getattr(rec.fun, "__self__", None) if inspect.ismethod(rec.fun) else None
        for attr in self.attr_names if owner is not None else ():
            if hasattr(owner, attr):
                out[f"self.{attr}"] = getattr(owner, attr)
        return out

    def record(self, rec: "_Watched", args, kwargs, out, before: dict) -> None:
        frame = sys._getframe(2)
        if os.path.realpath(frame.f_code.co_filename) != self.real or len(self.calls) > MAX_RECORDS:
            return
        after = self.globals_of(rec)
        eager, error = None, "not compared"
        # The same call without jit, for the functions that read a stale-global finding's
        # global (only those: an eager call of a function that writes state would move it).
        read = {n.rpartition(".")[2] for n in self.stale_names}  # `obj.attr`: co_names has attr
        if rec.code is not None and read & set(rec.code.co_names) \
                and not self.leak_names & set(rec.code.co_names):
            try:
                with jax.disable_jit(), contextlib.redirect_stdout(io.StringIO()):
                    eager = rec.fun(*args, **kwargs)
                error = ""
            except Exception as exc:  # noqa: BLE001 - compared as "no eager result"
                eager, error = None, first_line(exc)
        call = Call(rec.code, frame.f_lineno, before, out, eager, error, after)
        if rec.code is not None and rec.code.co_name in self.arg_functions \
                and sum(c.code is rec.code for c in self.calls) < 3:
            call.args, call.kwargs = tuple(args), dict(kwargs)
        self.calls.append(call)

    def lax(self, name: str, original, compiled):
        """`jax.lax.<name>` watched: a call at a JAX402 line is recorded as one Made, with the
        compiles of the loop or cond itself during the call (none under a trace: the
        enclosing jit compiles it) and whether its functions are new objects."""

        @functools.wraps(original)
        def call(*args, **kwargs):
            line = self._caller_line(2)
            if line is None or line not in self.lines or len(self.made) >= MAX_RECORDS:
                return original(*args, **kwargs)
            funs = [f for v in (*args, *kwargs.values())
                    for f in (v if isinstance(v, (list, tuple)) else [v]) if callable(f)]
            key = _lax_key(args, kwargs)
            seen = self.lax_seen.setdefault((line, key), [])
            fresh = not all(any(ref() is f for ref in seen) for f in funs)
            for f in funs:
                try:
                    seen.append(weakref.ref(f))
                except TypeError:  # no weak reference: kept alive instead, never "fresh"
                    seen.append(lambda f=f: f)
            del seen[:-64]
            before = compiled()
            out = original(*args, **kwargs)
            # A call whose functions the cache has seen alive compiles for another reason
            # (the program cleared the caches): not the fresh-function compile.
            made = Made(line, key, name, calls=1, compiles=compiled() - before, fresh=fresh)
            self.made.append(made)
            return out

        return call

    def made_at(self, first: int, last: int, since: int = 0, upto: Optional[int] = None) -> list[Made]:
        """The jitted objects made at these lines, of those made[since:upto] (the import's,
        or one call's: never another recipe's calls, which the program did not make)."""
        lines = with_decorators(self.real, first, last)
        return [m for m in self.made[since:upto] if m.line in lines]


class _Watched:
    def __init__(self, watch: JitWatch, jitted, fun, code, made: Optional[Made], stale: bool):
        self._watch, self._jitted, self.fun, self.code = watch, jitted, fun, code
        self._made, self._stale = made, stale
        self.__wrapped__ = fun
        self.__name__ = getattr(fun, "__name__", "f")

    def __call__(self, *args, **kwargs):
        before = self._watch.globals_of(self) if self._stale else {}
        out = self._jitted(*args, **kwargs)
        outputs = self._watch.outputs
        if outputs is not None and len(outputs) < 10 * MAX_RECORDS:
            outputs.append(out)
        floats = self._watch.floats
        if floats is not None and len(floats) < 10 * MAX_RECORDS:
            given = [v for v in (*args, *kwargs.values()) if type(v) is float]
            floats.append((given, out))
        if self._made is not None:
            self._made.calls += 1
        if self._stale:
            self._watch.record(self, args, kwargs, out, before)
        return out

    def __getattr__(self, name):
        return getattr(self._jitted, name)

    def __get__(self, instance, owner=None):
        return self if instance is None else functools.partial(self, instance)


@dataclasses.dataclass
class Loop:
    """One call of lax.fori_loop / scan the program made whose body holds a JAX105 line: how
    many iterations it asked for, and how often the flagged line ran during the call."""

    line: int  # the caller's line
    name: str
    code: Any  # unused (None): the flagged line may run in what the body calls
    flagged: int  # the finding's line inside the body
    trips: int
    runs: int
    reads: int = 0  # `next(...)` / `.__next__()` calls made at the flagged line during the call


def _trips(name: str, args, kwargs) -> Optional[int]:
    """The iterations a lax loop call asks for, when its bounds are concrete."""
    try:
        if name == "fori_loop":
            lower = kwargs.get("lower", args[0] if args else None)
            upper = kwargs.get("upper", args[1] if len(args) > 1 else None)
            if isinstance(lower, jax.core.Tracer) or isinstance(upper, jax.core.Tracer):
                return None
            return max(0, int(upper) - int(lower))
        length = kwargs.get("length", args[3] if len(args) > 3 else None)
        if length is not None:
            return int(length)
        xs = kwargs.get("xs", args[2] if len(args) > 2 else None)
        leaves = jax.tree_util.tree_leaves(xs)
        return int(leaves[0].shape[0]) if leaves else None
    except Exception:  # noqa: BLE001 - bounds we cannot read: not recorded
        return None


def watch_loops(state: dict, path: str, lines: set) -> None:
    """JAX105: record the program's own fori_loop / scan calls during which a flagged line ran
    (in the body, or in what the body calls while it is traced: `lambda: next(it)` made
    elsewhere and called from the body), with the iterations asked for and the runs of that
    line during the call (counted by the import's line watch, so only while the program's own
    import runs: a recipe's call is never recorded). A body traced once runs its Python code
    once for all the iterations."""
    real = os.path.realpath(path)
    loops = state.setdefault("iter_loops", [])

    def runs(watch) -> Counter:
        """Runs of each flagged line so far, in any code of the file."""
        out: Counter = Counter()
        for (code, line), n in list(watch.counts.items()):
            if line in lines:
                out[line] += n
        return out

    def wrap(name, original):
        @functools.wraps(original)
        def call(*args, **kwargs):
            watch = state.get("live_watch")
            tracing = getattr(sys.gettrace(), "__self__", None)
            if watch is None or tracing is not watch or len(loops) >= MAX_RECORDS:
                return original(*args, **kwargs)
            trips = _trips(name, args, kwargs)
            before = runs(watch)
            reads: Counter = Counter()
            old = sys.getprofile()

            def profile(frame, event, arg):
                # An item read from an iterator at a flagged line (a C call of next).
                if event == "c_call" and frame.f_lineno in lines \
                        and getattr(arg, "__name__", "") in ("next", "__next__") \
                        and os.path.realpath(frame.f_code.co_filename) == real:
                    reads[frame.f_lineno] += 1

            sys.setprofile(profile)
            try:
                out = original(*args, **kwargs)
            finally:
                sys.setprofile(old)
            ran = runs(watch) - before
            if trips is not None and ran:
                frame, line = sys._getframe(1), 0
                while frame is not None and not line:
                    if os.path.realpath(frame.f_code.co_filename) == real:
                        line = frame.f_lineno
                    frame = frame.f_back
                for flagged, n in sorted(ran.items()):
                    loops.append(Loop(line, name, None, flagged, trips, n, reads[flagged]))
            return out

        return call

    for name in ("fori_loop", "scan"):
        setattr(jax.lax, name, wrap(name, getattr(jax.lax, name)))


@dataclasses.dataclass
class Gradient:
    """One call of a gradient function the program made (jax.grad, value_and_grad, jacrev...)."""

    line: int  # the caller's line in the file
    out: Any
    ran: dict  # finding index -> runs of its lines during the call


def watch_gradients(state: dict, path: str, lines: dict) -> None:
    """JAX701: record what the program's own gradient calls return, and how often each flagged
    `where` line ran while they were computed (`lines`: finding index -> (first, last))."""
    real = os.path.realpath(path)
    state["gradients"] = grads = []

    seen: dict = {}  # (first, last) -> (size of the counts when looked, their keys there)

    def runs(first, last) -> int:
        watch = state.get("live_watch")
        if watch is None:
            return 0
        size, keys = seen.get((first, last), (-1, []))
        if size != len(watch.counts):  # a new (code, line) ran: look again, else reuse
            keys = [k for k in list(watch.counts) if first <= k[1] <= last]
            seen[(first, last)] = (len(watch.counts), keys)
        return sum(watch.counts[k] for k in keys)

    def patch(name):
        original = getattr(jax, name)

        @functools.wraps(original)
        def transform(fun, *args, **kwargs):
            made = original(fun, *args, **kwargs)

            @functools.wraps(made)
            def call(*a, **k):
                if len(grads) >= MAX_RECORDS:
                    return made(*a, **k)
                before = {i: runs(*span) for i, span in lines.items()}
                out = made(*a, **k)
                frame = sys._getframe(1)
                while frame is not None and os.path.realpath(frame.f_code.co_filename) != real:
                    frame = frame.f_back
                if frame is not None and len(grads) < MAX_RECORDS:
                    grads.append(Gradient(frame.f_lineno, out, {
                        i: runs(*span) - before[i] for i, span in lines.items()}))
                return out

            return call

        setattr(jax, name, transform)

    for name in _REVERSE_MODE:
        if hasattr(jax, name):
            patch(name)


#: The program's reverse-mode entry points whose results JAX701 reads, from the table of
#: differentiating transforms (forward mode selects tangents and makes no 0 * inf).
_REVERSE_MODE = tuple(q[len("jax."):] for q in DIFFERENTIATING
                      if q.count(".") == 1 and q.startswith("jax.")
                      and q[len("jax."):] not in FORWARD_ONLY_TRANSFORMS)


def install(state: dict, path: str, findings: list[dict]) -> Optional[JitWatch]:
    nan_lines = {i: (f["line"], max(f.get("end_line") or f["line"], f["line"]))
                 for i, f in enumerate(findings) if f.get("code") == "JAX701"}
    if nan_lines:
        watch_gradients(state, path, nan_lines)
    iterated = {f["line"] for f in findings if (f.get("confirm") or {}).get("kind") == "iterator"}
    if iterated:
        watch_loops(state, path, iterated)
    stale = {(f.get("confirm") or {}).get("global_name") for f in findings
             if (f.get("confirm") or {}).get("kind") == "stale-global"} - {None}
    leak = {(f.get("confirm") or {}).get("global_name") for f in findings
            if (f.get("confirm") or {}).get("kind") == "leak"} - {None}
    lines = {n for f in findings if f.get("code") in ("JAX401", "JAX402")
             or (f.get("confirm") or {}).get("kind") == "overhead"
             for n in with_decorators(path, f["line"], max(f.get("end_line") or f["line"],
                                                           f["line"]))}
    attrs = {(f.get("confirm") or {}).get("attr_name") for f in findings
             if (f.get("confirm") or {}).get("kind") == "leak"} - {None}
    draws = {(f.get("function") or "").rsplit(".", 1)[-1] for f in findings
             if (f.get("confirm") or {}).get("kind") == "prng"} - {""}
    timed = [i for i, f in enumerate(findings) if f.get("code") == "JAX601"]
    count = any((f.get("confirm") or {}).get("kind") in ("print", "iterator") for f in findings)
    clocks = [i for i, f in enumerate(findings) if (f.get("confirm") or {}).get("clock")]
    if not stale and not lines and not leak and not attrs and not draws and not timed \
            and not count and not clocks:
        return None
    watch = JitWatch(path, stale, lines, leak, attrs, draws, count_calls=count)
    if clocks:
        watch.floats = []
        for i in clocks:
            probe = (state.get("probes") or {}).get(i)
            if probe is not None:
                probe.floats = watch.floats
    if timed:
        watch.outputs = []
        for i in timed:
            probe = (state.get("probes") or {}).get(i)
            if probe is not None:
                probe.outputs = watch.outputs
                probe.own = (findings[i].get("function") or "<module>").rsplit(".", 1)[-1]
    jax.jit = watch.jit
    if lines:
        def compiled() -> int:
            counts = state["compiles"]
            return sum(counts[n] for n in LAX_COMPILES)

        for name in LAX_CALLS:
            setattr(jax.lax, name, watch.lax(name, getattr(jax.lax, name), compiled))
    state["jit_watch"] = watch
    return watch


def with_decorators(path: str, first: int, last: int) -> set[int]:
    """The lines, and the decorator lines of a def among them: `@jax.jit` above `def policy`
    makes the jitted object on its own line."""
    import ast
    import linecache

    lines = set(range(first, last + 1))
    try:
        tree = ast.parse("".join(linecache.getlines(path)))
    except (SyntaxError, ValueError):
        return lines
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and first <= node.lineno <= last:
            for d in node.decorator_list:
                lines |= set(range(d.lineno, (d.end_lineno or d.lineno) + 1))
    return lines


def program_calls(state: dict, entry_code) -> int:
    """How often the program called the function whose code is `entry_code`: its jitted
    calls, recorded above, or its plain calls (the runs of its first line while importing)."""
    from jaxlint.confirm.target import code_key

    if entry_code is None:
        return 0
    key = code_key(entry_code)
    watch = state.get("jit_watch")
    jitted = sum(1 for c in watch.calls if c.code is not None and code_key(c.code) == key) \
        if watch is not None else 0
    lines = state.get("import_watch")
    plain = 0
    if lines is not None:
        runs = [(ln, n) for (code, ln), n in lines.counts.items() if code_key(code) == key]
        plain = min(runs)[1] if runs else 0  # its first line runs once per call (or trace)
    return max(jitted, plain)


def repeated(made: list[Made]) -> Counter:
    """How many called objects share each key."""
    return Counter(m.key for m in made if m.calls)
