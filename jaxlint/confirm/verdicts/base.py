"""What every verdict module shares (worker side, imports jax): the Job, the Verdict, and
the evidence records.

A verdict module (one per kind of evidence, beside this file) exports `confirm(job) -> Verdict`
and its own `Evidence` dataclass; jaxlint.confirm.verdicts maps rule codes and confirm kinds to
the modules. A Verdict is sent to the parent as `to_dict()`: `verdict`, `summary`, `evidence`
(the record's text, what the output formats print), `record` (the record's fields, for JSON /
SARIF and the server), `shapes` and `platform`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import io
import re
import types
from typing import Any, Callable, ClassVar, Optional, Union

import jax
import numpy as np

from jaxlint.confirm import synth
from jaxlint.confirm.target import Entry, LineWatch, code_key, find_entry

CONFIRMED, NOT_REPRODUCED, COULD_NOT_RUN = "confirmed", "not reproduced", "could not run"
TRACER = re.compile(r"Tracer|Traced<")


@dataclasses.dataclass
class Evidence:
    """What the run showed. Subclasses add typed fields and say it in `text()`."""

    kind: ClassVar[str] = "note"
    note: str = ""

    def text(self) -> str:
        return self.note

    def fields(self) -> dict[str, Any]:
        out = {"kind": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = value if isinstance(value, (str, int, float, bool, type(None), list)) \
                else str(value)
        return out


@dataclasses.dataclass
class Reason(Evidence):
    """Why nothing could run: `why` is one of WHY (missing package, file, data, device, time
    limit, arguments, code) and `note` says what exactly."""

    kind: ClassVar[str] = "could-not-run"
    why: str = "code"

    def text(self) -> str:
        return self.note


WHY = ("package", "file", "data", "device", "time", "arguments", "code", "no-recipe")


@dataclasses.dataclass
class Verdict:
    verdict: str
    summary: str
    evidence: Evidence = dataclasses.field(default_factory=Evidence)
    shapes: str = ""

    def to_dict(self) -> dict[str, Any]:
        text = self.evidence.text()
        return {"verdict": self.verdict, "summary": self.summary, "evidence": text,
                "record": self.evidence.fields(), "shapes": self.shapes,
                "platform": platform()}


def verdict(kind: str, summary: str, evidence: Union[Evidence, str] = "", shapes: str = "") -> Verdict:
    if isinstance(evidence, str):
        evidence = Reason(note=evidence or summary, why=_why(summary + " " + evidence)) \
            if kind == COULD_NOT_RUN else Evidence(note=evidence)
    return Verdict(kind, summary, evidence, shapes)


def _why(text: str) -> str:
    text = text.lower()
    for words, why in ((("timed out", "time limit", "too slow"), "time"),  # not "RuntimeError"
                       (("no module named", "modulenotfounderror", "not installed",
                         "missing module", "missing name in module"), "package"),
                       (("no such file", "filenotfounderror", "missing file"), "file"),
                       (("device", "backend", "gpu", "tpu"), "device"),
                       (("no recipe",), "no-recipe"),
                       (("argument", "shapes", "self`", "signature"), "arguments")):
        if any(w in text for w in words):
            return why
    return "code"


_PLATFORM: dict[str, str] = {}


def set_platform(info: dict[str, str]) -> None:
    """The worker asks one fork which backend JAX starts; every verdict then names it."""
    _PLATFORM.update(info)


def platform() -> dict[str, str]:
    """Where the verdict ran: jax.default_backend() and the first device's kind."""
    if not _PLATFORM:
        try:
            dev = jax.devices()[0]
            _PLATFORM.update(backend=jax.default_backend(), device_kind=str(dev.device_kind),
                             jax=jax.__version__)
        except Exception as exc:  # noqa: BLE001 - no backend: say so
            _PLATFORM.update(backend="none", device_kind=first_line(exc), jax=jax.__version__)
    return dict(_PLATFORM)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip()


class CompileBudget(BaseException):
    """Raised from the compile listener to stop a runaway loop; passes `except Exception`."""


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
        self.mode = "jit"  # how the program traces the function: "jit", "jvp" or "eager"

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
        traced = fplan.get("traced")
        if fplan.get("abstract") and traced is not None and not entry.jitted:
            # Parameters the program's transforms leave untraced stay Python values.
            static |= {n for n in sig.parameters if n not in traced and n != "self"}
        # How the program traces it: abstractly (jit, vmap, scan...), with JVP tracers over
        # concrete values (grad alone), or not at all (called plainly).
        self.mode = "jit" if entry.jitted or fplan.get("abstract") or not fplan else \
            "jvp" if fplan.get("differentiates") else "eager"
        if is_method:
            instance = self.instance_obj = self.instance(entry.owner)
            if entry.jitted:
                jitted = lambda *a, **k: obj(instance, *a, **k)  # noqa: E731
                jitted.trace = lambda *a, **k: obj.trace(instance, *a, **k)
                eager = jitted
            else:
                bound = eager = getattr(instance, entry.attr)
                # A method the program never traces abstractly runs as the program runs it:
                # under jit a Python argument it passes on (a static one) would be a tracer.
                jitted = jax.jit(bound, static_argnames=tuple(static - {"self"})) \
                    if self.mode == "jit" else \
                    _as_program_runs(bound, self.mode, traced, inspect.signature(bound))
        elif entry.jitted:
            jitted = eager = obj
        elif self.mode == "jit":
            jitted = jax.jit(obj, static_argnames=tuple(static))
            eager = obj
        else:
            eager = obj
            jitted = _as_program_runs(obj, self.mode, traced, sig)
        return sig, is_method, static, jitted, eager

    def instance(self, cls: type):
        """`self` for a method: an instance the program built (found from its module globals,
        made with its own constructor arguments), else one built here with no arguments."""
        made = self.program_instance(cls)
        if made is not None:
            self.factory_args = f"self: the program's `{made[0]}`"
            return made[1]
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

    def program_instance(self, cls: type) -> Optional[tuple[str, Any]]:
        """(where, object) of the first instance of exactly `cls` the program holds: a module
        global, or an attribute or item of one (`runner.model`, `models[0]`)."""
        if self.module is None:
            return None
        level = [(name, v) for name, v in list(vars(self.module).items())
                 if not name.startswith("__")]
        for _ in range(2):
            nxt = []
            for where, v in level:
                if type(v) is cls:
                    return where, v
                if isinstance(v, (list, tuple)):
                    nxt += [(f"{where}[{i}]", x) for i, x in enumerate(v[:20])]
                elif isinstance(v, dict):
                    nxt += [(f"{where}[{k!r}]", x) for k, x in list(v.items())[:20]]
                elif hasattr(v, "__dict__") and not isinstance(v, (type, types.ModuleType,
                                                                    types.FunctionType)):
                    nxt += [(f"{where}.{k}", x) for k, x in list(vars(v).items())[:20]]
            level = nxt
        return None

    def args_list(self, entry: Entry, sig, is_method: bool, static: set, concrete: bool):
        """Argument sets, best first: the user's example call, then the calls the module
        itself makes (replayed), then the synthesized try-list (built lazily: concrete
        arrays compile eager ops)."""
        fplan = self.fplan(entry)
        concrete = concrete or self.mode != "jit"
        seen, errors = set(), []
        for a in self.given_args(entry, fplan, errors):
            seen.add(a.shapes)
            yield a
        if seen:
            return  # the program's own arguments: never ones it does not pass
        for step in range(synth.steps_for(fplan)):
            try:
                a = synth.build(fplan, sig, step, concrete, static, skip_first=is_method,
                                namespace=vars(self.module))
            except Exception as exc:  # noqa: BLE001 - a parameter we cannot build
                errors.append(str(exc))
                continue
            if a.shapes not in seen:
                seen.add(a.shapes)
                a.invented = True
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
                    + ", ".join(describe_value(v) for v in [*args, *kwargs.values()])]
            args, kwargs, fixed = _as_traced(fplan, list(args), dict(kwargs))
            yield synth.Args(args, kwargs, set(), desc + fixed)

    def first_args(self, entry: Entry, sig, is_method: bool, static: set):
        return next(iter(self.args_list(entry, sig, is_method, static, concrete=True)))

    def watch(self) -> LineWatch:
        return LineWatch(self.path)

    def ran_line(self, watch: LineWatch) -> int:
        return watch.ran(self.line, self.end_line, self.key)


def _as_traced(fplan: dict, args: list, kwargs: dict):
    """A call's arguments as the program's traces see them: a parameter that every traced
    call gives one Python constant (`for_jit=True` from the jitted caller) takes it, though
    this call (an eager one, or one leaving the default) gives another; tracing the call's
    own value would trace an `if` arm the program never traces."""
    params = fplan.get("params", [])
    positional = [p["name"] for p in params if not p.get("kwonly")]
    if fplan.get("is_method"):
        positional = positional[1:]
    fixed = []
    for p in params:
        if "traced_value" not in p:
            continue
        name, value = p["name"], p["traced_value"]
        if name in positional and positional.index(name) < len(args):
            args[positional.index(name)] = value
        else:
            kwargs[name] = value
        fixed.append(f"{name}={value!r} as every traced call passes it")
    return args, kwargs, fixed


def _as_program_runs(fn, mode: str, traced, sig):
    """A callable with a `.trace` that runs `fn` as the program does when it never traces it
    abstractly: under jax.jvp over its float arguments (what grad alone does: the other
    arguments stay concrete), or plainly."""
    names = list(sig.parameters)

    def run(*args, **kwargs):
        if mode == "eager":
            return fn(*args, **kwargs)
        idx = [i for i, a in enumerate(args)
               if isinstance(a, (jax.Array, np.ndarray, float))
               and np.issubdtype(np.result_type(a), np.floating)
               and (traced is None or (i < len(names) and names[i] in traced))]

        def diff(*primals):
            full = list(args)
            for i, v in zip(idx, primals):
                full[i] = v
            return fn(*full, **kwargs)

        primals = [jax.numpy.asarray(args[i]) for i in idx]
        return jax.jvp(diff, primals, [jax.numpy.ones_like(x) for x in primals])

    run.trace = run
    return run


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


def describe_value(v) -> str:
    leaves, tree = jax.tree_util.tree_flatten(v)
    if tree.num_leaves == 1 and not tree.children() and hasattr(v, "shape"):
        try:
            dtype = np.dtype(v.dtype).name
        except TypeError:  # a typed key array: key<fry> is no NumPy dtype
            dtype = str(v.dtype)
        return f"{dtype}[{','.join(map(str, v.shape))}]"
    if not leaves:
        return _clip(repr(v), 30)
    return f"{type(v).__name__} of {len(leaves)} leaves"


class Unrunnable(Exception):
    """The finding cannot be run; the message is the reason."""


def leaves_equal(a, b) -> bool:
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape or not np.allclose(x, y, equal_nan=True):
            return False
    return True


def short(value) -> str:
    leaves = jax.tree_util.tree_leaves(value)
    text = ", ".join(f"tracer {x.aval.str_short()}" if isinstance(x, jax.core.Tracer) else
                     np.array2string(np.asarray(x), precision=4, threshold=6) for x in leaves[:2])
    return " ".join(text.split())[:80]


def concrete_runs(job: Job, body: Callable[[Job, Any, Any, Any], Optional[dict]]) -> dict:
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
            result.shapes = result.shapes or a.shapes
            return result
    if last is not None:
        return verdict(COULD_NOT_RUN, f"the function raised {type(last[0]).__name__}",
                       f"{first_line(last[0])} (with {last[1]})", last[1])
    return verdict(COULD_NOT_RUN, f"line {job.line} never ran")


