"""Watching the program's own lines run: the values their names hold before and after, the
value a line returns, how long it took. Nothing is evaluated again: the probe reads the frame.

The worker registers a probe for each finding whose evidence is a value at its line (see
PROBED), before it imports the file, so the module-level code is watched as it runs.
"""

from __future__ import annotations

import ast
import dataclasses
import linecache
import time
from typing import Any, Optional

# Rules whose evidence is a value at the flagged line, and lines linked to it (JAX701: the
# statements that call the differentiated function).
PROBED = frozenset({"JAX101", "JAX302", "JAX401", "JAX601", "JAX602", "JAX701", "JAX702", "JAX703",
                    "JAX704"})
MAX_HITS = 200
MISSING = object()


@dataclasses.dataclass
class Hit:
    """One run of the probed lines in one frame."""

    before: dict[str, Any]
    after: dict[str, Any]
    returned: Any
    seconds: float
    unready: list[str]  # names holding jax arrays still computing when the line started
    raised: bool = False
    frame_name: str = ""
    wait: float = 0.0  # seconds those arrays still took to finish once the line was done
    # Names the line bound to jax arrays still computing when it was done (what a clock read
    # right after it, as IPython's %time does, would miss).
    unready_after: list = dataclasses.field(default_factory=list)
    # The jitted calls made while the line ran: (their Python float arguments, their result).
    floats: list = dataclasses.field(default_factory=list)
    at: float = 0.0  # time.perf_counter() when the line started
    # Work that a function written on the line (a timed lambda) returned still computing took
    # once the line was done: what a timer calling it, reading the clock as it returned, missed.
    calls_wait: float = 0.0
    # Seconds the arrays in `unready_after` still took once the line was done (timing probes).
    wait_after: float = 0.0
    # The CPU seconds at most of all those waits (_waited): on a loaded machine a computation
    # also waits for a core, which is the machine's time, not the work's.
    work: float = 0.0


class Probe:
    def __init__(self, first: int, last: int, names: list[str], unready: bool = False,
                 settle: bool = False):
        self.first, self.last = first, last
        self.names = names
        self.check_unready = unready
        # A timing line's own results still computing when it ends are waited for (after the
        # program's clock read) to measure the work the clock missed.
        self.settle = settle
        self.hits: list[Hit] = []
        # The results of the program's jitted calls, in call order (jit_watch fills it): those
        # made while the line ran and still computing when it ended were timed unfinished.
        self.outputs: Optional[list] = None
        self.floats: Optional[list] = None  # jit_watch's (float arguments, result) per call
        self.own: Optional[str] = None  # the code name of the line's own frame, when known
        self._seen = 0  # outputs already looked at by an earlier run of the line
        self._own_hits = 0
        self._last_foreign: Any = None  # what the lambda on the line returned last

    def open(self, frame) -> dict:
        if self.own is not None and frame.f_code.co_name != self.own:
            # A lambda written on the line (`timeit(lambda: f(x))`) starts there too; watching
            # it would block on its results, and change the timing the line measures.
            return {"foreign": True, "t": time.perf_counter()}
        self._last_foreign = None
        loc = frame.f_locals
        earlier = []
        if self.outputs is not None:
            # Results of jitted calls made since the line last ran (`f(x)` unassigned, then
            # `end = time.perf_counter()`): read without waiting, so the clock is not moved.
            earlier = [out for out in self.outputs[self._seen:] if _computing(out)]
        state = {"before": {n: loc.get(n, MISSING) for n in self.names}, "t": time.perf_counter(),
                 "unready": _unready(loc) if self.check_unready else [],
                 "outputs": len(self.outputs) if self.outputs is not None else 0,
                 "floats": len(self.floats) if self.floats is not None else 0,
                 "earlier": earlier}
        if earlier:
            state["unready"] = state["unready"] + [
                f"the results of {len(earlier)} jitted call(s) made before the line"]
        return state

    def close(self, frame, state: dict, returned: Any, raised: bool) -> None:
        if state.get("foreign"):
            # Only whether what it returned was still computing (read, never waited for): the
            # timer that called it reads the clock as soon as it returns.
            seconds = time.perf_counter() - state["t"]
            self._last_foreign = returned
            if len(self.hits) >= MAX_HITS:
                return
            unready = ["its result"] if returned is not None and _unready({"its result": returned}) else []
            self.hits.append(Hit({}, {}, returned, seconds, [], raised, frame.f_code.co_name,
                                 0.0, unready, at=state["t"]))
            return
        seconds = time.perf_counter() - state["t"]
        if self._own_hits >= MAX_HITS:
            return
        self._own_hits += 1
        # The lambda's last result, still computing once the line (timeit, and its clock) was
        # done: results come in call order, so waiting for it waits for all of them.
        work = [0.0]
        calls_wait = _settle(self._last_foreign, work) \
            if self.settle and self._last_foreign is not None and _computing(self._last_foreign) \
            else 0.0
        self._last_foreign = None
        made = self.outputs[state["outputs"]:] if self.outputs is not None else []
        running = [out for out in made if _computing(out)]
        if self.outputs is not None:
            self._seen = len(self.outputs)
        if state["earlier"]:
            t = _work_clock()
            for out in state["earlier"]:
                _wait(out)
            state["made_wait"] = _waited(t, work)
        if running:
            # Work the line itself started (`timeit(lambda: f(x))`): still computing once the
            # line, and the clock in it, was done.
            t = _work_clock()
            for out in running:
                _wait(out)
            state["unready"] = state["unready"] + [
                f"the results of {len(running)} of the {len(made)} jitted call(s) made in the line"]
            state["made_wait"] = state.get("made_wait", 0.0) + _waited(t, work)
        loc = frame.f_locals
        after = {n: loc.get(n, MISSING) for n in self.names}
        unready_after = _unready({n: v for n, v in after.items() if v is not state["before"].get(n)}) \
            if self.check_unready else []
        if self.check_unready and returned is not None and _unready({"its result": returned}):
            unready_after.append("its result")  # a lambda's value, as a timer that calls it gets it
        wait = state.get("made_wait", 0.0)
        if state["unready"]:
            # Waiting for them changes no value; it says how much work the clock missed.
            t = _work_clock()
            for name in state["unready"]:
                try:
                    loc[name].block_until_ready()
                except Exception:  # noqa: BLE001 - not a name (the line's own calls), a tracer
                    continue
            wait += _waited(t, work)
        floats = self.floats[state["floats"]:] if self.floats is not None else []
        settled = 0.0
        if unready_after and self.settle:
            settled = _settle([returned if n == "its result" else after.get(n)
                               for n in unready_after], work)
        self.hits.append(Hit(state["before"], after, returned, seconds, state["unready"], raised,
                             frame.f_code.co_name, wait, unready_after, floats, at=state["t"],
                             wait_after=settled, calls_wait=calls_wait, work=work[0]))


def _computing(value) -> bool:
    import jax

    for leaf in jax.tree_util.tree_leaves(value):
        ready = getattr(leaf, "is_ready", None)
        try:
            if callable(ready) and not ready():
                return True
        except Exception:  # noqa: BLE001 - a deleted buffer, a tracer
            continue
    return False


def _settle(value, work: list) -> float:
    """Seconds until every array in `value` is computed (a wait that changes no value)."""
    t = _work_clock()
    _wait(value)
    return _waited(t, work)


def _work_clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _waited(start: tuple[float, float], work: list) -> float:
    """Wall seconds since `start`; adds to `work[0]` the same, but no more than the process's
    CPU time (the computation's own work, without its waits for a core)."""
    wall = time.perf_counter() - start[0]
    work[0] += min(wall, time.process_time() - start[1])
    return wall


def _wait(value) -> None:
    import jax

    for leaf in jax.tree_util.tree_leaves(value):
        try:
            leaf.block_until_ready()
        except Exception:  # noqa: BLE001
            continue


def _unready(namespace: dict) -> list[str]:
    out = []
    for name, value in list(namespace.items())[:500]:
        ready = getattr(value, "is_ready", None)
        if callable(ready) and type(value).__module__.startswith("jax"):
            try:
                if not ready():
                    out.append(name)
            except Exception:  # noqa: BLE001 - a deleted buffer, a tracer
                continue
    return out


def _tree(path: str) -> Optional[ast.Module]:
    """The module as the program's run sees it (linecache), or None when it does not parse."""
    try:
        return ast.parse("".join(linecache.getlines(path)))
    except (SyntaxError, ValueError):
        return None


def statement(path: str, line: int) -> Optional[ast.stmt]:
    """The innermost simple statement that starts at `line`."""
    tree = _tree(path)
    if tree is None:
        return None
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno == line and not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if best is None or isinstance(best, (ast.For, ast.While, ast.If, ast.With)):
                best = node
    return best


def names_in(node: Optional[ast.AST]) -> list[str]:
    if node is None:
        return []
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id not in out:
            out.append(n.id)
    return out


def probes_for(path: str, findings: list[dict]) -> dict[int, Probe]:
    """A probe per probed finding (by its index), and one per line linked to a JAX701 finding."""
    out = {}
    for i, f in enumerate(findings):
        if f.get("code") not in PROBED and (f.get("confirm") or {}).get("kind") != "overhead":
            continue
        line = f["line"]
        stmt = statement(path, line)
        last = getattr(stmt, "end_lineno", None) or max(f.get("end_line") or line, line)
        if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With)):
            last = line  # the header only
        names = names_in(stmt)
        if f.get("code") == "JAX302":
            # `for p in params: p -= g`: the container the loop variable came from is evidence.
            loop = loop_of(path, stmt)
            names += [n for n in names_in(loop.iter if loop is not None else None) if n not in names]
        out[i] = Probe(line, last, names, unready=f.get("code") in ("JAX601", "JAX602"),
                       settle=f.get("code") == "JAX601")
    return out


def start_probes(path: str, findings: list[dict]) -> dict[int, Probe]:
    """A probe on the clock read that started each timer (the rule's `start_line`): when it
    ran, so that the interval the program measured is known."""
    out = {}
    for i, f in enumerate(findings):
        line = (f.get("confirm") or {}).get("start_line")
        if f.get("code") == "JAX601" and isinstance(line, int):
            stmt = statement(path, line)
            out[i] = Probe(line, getattr(stmt, "end_lineno", None) or line, [])
    return out


def loop_of(path: str, stmt: Optional[ast.stmt]) -> Optional[ast.For]:
    """The innermost `for` whose body holds `stmt` (an augmented assignment) and whose target
    binds the name `stmt` assigns: `for param, g in zip(params, grads): param -= g`."""
    if not isinstance(stmt, ast.AugAssign) or not isinstance(stmt.target, ast.Name):
        return None
    tree = _tree(path)
    if tree is None:
        return None
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and node.body[0].lineno <= stmt.lineno <= (node.end_lineno or 0) \
                and stmt.target.id in names_in(node.target) \
                and (best is None or node.lineno > best.lineno):
            best = node
    return best


def linked_probes(path: str, function: Optional[str]) -> list[Probe]:
    """Probes on the statements that call `function` or pass it to a transform
    (`g = jax.grad(f)(x)`, `masked_mean(1.0, 0.0)` for a decorated `masked_mean`)."""
    if not function:
        return []
    name = function.rsplit(".", 1)[-1]
    # A method is used through its instance: `loss.distance(a, b)`, `jax.grad(loss.distance)`.
    method = "." in function

    def names_it(node) -> bool:
        return isinstance(node, ast.Name) and node.id == name or \
            method and isinstance(node, ast.Attribute) and node.attr == name

    try:
        tree = ast.parse("".join(linecache.getlines(path)))
    except (SyntaxError, ValueError):
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Assign, ast.Expr, ast.AnnAssign, ast.Return)):
            continue
        calls = [c for c in ast.walk(node) if isinstance(c, ast.Call)]
        if any(names_it(c.func) or any(names_it(a) for a in c.args) for c in calls):
            out.append(Probe(node.lineno, node.end_lineno or node.lineno, names_in(node)))
    return out


# The probe of a confirm job (jaxlint.confirm.verdicts.base.Job), and its hits.
def job_probe(job) -> Optional[Probe]:
    return (job.state.get("probes") or {}).get(job.f.get("_index"))


def probe_hits(job) -> list["Hit"]:
    """The probe's runs at import, else in one run of the program's own call of the function."""
    probe = job_probe(job)
    if probe is None:
        return []
    if not probe.hits and job.f.get("function"):
        run_function_once(job, probe)
    return probe.hits


def run_function_once(job, probe: Probe) -> None:
    """The program never ran the line at import: run the function once, as the program calls
    it (its call sites' arguments, or the kinds they pass), under its own transforms."""
    import jax

    from jaxlint.confirm.target import LineWatch

    entry = job.entry()
    sig, is_method, static, jitted, eager = job.callables(entry)
    runner = eager if job.mode != "jit" else jitted
    start = (job.state.get("starts") or {}).get(job.f.get("_index"))
    for a in job.args_list(entry, sig, is_method, static, concrete=True):
        watch = LineWatch(job.path)
        watch.add_probe(probe)
        if start is not None:
            watch.add_probe(start)
        try:
            jax.clear_caches()
            with watch:
                runner(*a.args, **a.kwargs)
        except Exception:  # noqa: BLE001 - the values seen so far still count
            pass
        job.shapes_used = a.shapes
        if probe.hits:
            return
