"""The child process of confirm mode: imports jax once, then confirms each file in a fork.

    python -m jaxlint.confirm.worker WORKDIR START

Reads WORKDIR/jobs.json. This process stays pristine: it imports jax and installs the
listeners, but never starts a JAX backend (XLA's thread pools do not survive a fork) and never
runs user code. For each file from index START on it writes WORKDIR/start-<i>, forks, and the
fork imports and confirms that one file, then writes WORKDIR/result-<i>.json (results go
through files, because user code writes to stdout). So sys.modules, sys.path, the cwd, the
environment and anything the user patched (jax.jit included) die with the fork; the next file
starts from the same clean state. A fork that hangs or crashes is killed and reported here;
the parent kills this whole process group only if this process itself stops answering.
"""

from __future__ import annotations

import collections
import importlib
import json
import linecache
import re
import logging
import os
import signal
import sys
import time
import traceback
import types
import warnings
from typing import Optional

from jaxlint import processes


def _write(path: str, data) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.replace(tmp, path)


class _Timeout(BaseException):
    """Raised by the alarm when one finding takes too long."""


class State(dict):
    """Compile counts, cache-miss records and random draws, shared with the recipes."""


_OTHER_FILES: dict = {}  # target -> code files that are not it (the target is realpath'd)


def _install(state: State, jax) -> None:
    from jaxlint.confirm.verdicts.base import CompileBudget

    jax.config.update("jax_explain_cache_misses", True)

    def on_duration(name, secs, fun_name=None, **kw):
        if name == "/jax/core/compile/backend_compile_duration":
            state["compiles"][fun_name] += 1
            sites = state.get("compile_sites")
            if sites is not None and len(sites) < 2000:
                # The target file's lines on the stack: JAX logs no cache miss for a function
                # a library wraps (eqx.filter_jit), and this is where its compile was asked.
                target, frame, lines = state.get("path"), sys._getframe(1), []
                others = _OTHER_FILES.setdefault(target, set())
                while frame is not None:
                    name = frame.f_code.co_filename
                    if name == target or name not in others and os.path.realpath(name) == target:
                        lines.append(frame.f_lineno)
                    else:
                        others.add(name)
                    frame = frame.f_back
                if lines:
                    sites.append((str(fun_name), tuple(lines)))
            # Eager ops compile too (jit(iota)): only the file's own functions spend the budget.
            if str(fun_name)[4:-1] not in state.get("user_names", ()):
                return
            state["budget"] -= 1
            state["spent"] = state.get("spent", 0) + 1
            if state["budget"] < 0:
                state["budget"] = state["budget_total"]
                spent, state["spent"] = state["spent"], 0
                raise CompileBudget(f"stopped after {spent} compiles of the file's functions")

    jax.monitoring.register_event_duration_secs_listener(on_duration)

    class Misses(logging.Handler):
        def emit(self, record):
            try:
                msg = record.getMessage()
            except Exception:  # noqa: BLE001
                return
            if "TRACING CACHE MISS" in msg:
                state["misses"].append(msg)

    # The emitting logger moved between versions; its parent "jax" catches both.
    logger = logging.getLogger("jax")
    logger.addHandler(Misses())
    if logger.level == logging.NOTSET or logger.level > logging.WARNING:
        logger.setLevel(logging.WARNING)
    logger.propagate = False
    _patch_random(state, jax)
    from jaxlint.confirm import flow
    flow.install(jax)


_SAMPLERS = ("normal", "uniform", "randint", "bernoulli", "choice", "permutation", "categorical",
             "gumbel", "truncated_normal", "exponential", "gamma", "beta", "poisson", "laplace",
             "logistic", "cauchy", "dirichlet", "multivariate_normal", "rademacher", "bits",
             "split", "fold_in", "orthogonal", "ball", "t", "binomial", "chisquare")


def _patch_random(state: State, jax) -> None:
    """Record each draw the program makes: the lines of the target file on the stack
    (innermost first: a draw inside a helper the flagged line calls belongs to that line too),
    the key's bits and the first numbers drawn. A draw under a transform has a traced key: a
    `jax.debug.callback` records it when the program's own compiled call runs, so the draws
    of the program's jitted calls are observed, never replayed."""
    import numpy as np

    def lines_in_target(target):
        frame, lines = sys._getframe(2), []
        while frame is not None:
            if os.path.realpath(frame.f_code.co_filename) == target:
                lines.append(frame.f_lineno)
            frame = frame.f_back
        return lines

    def as_data(x):
        if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            return jax.random.key_data(x)  # split / fold_in return keys
        return x

    def numbers(x):
        return [round(v, 4) if isinstance(v, float) else v
                for v in np.asarray(x).ravel()[:_HEAD].tolist()]

    def record(name, lines, bits, head, order, traced=False):
        from jaxlint.confirm.flow import FLOW

        with FLOW.quiet():  # jaxlint reading the numbers is not the program using them
            head, order, bits = numbers(head), numbers(order), numbers(bits)
        state["draws"].append({"fn": name, "line": lines[0], "lines": lines,
                               "key": str(bits), "words": bits, "value": str(head[:3]),
                               "head": head,
                               "order": order, "traced": traced})

    def follow(draw: dict, out) -> None:
        """Label the numbers of a draw at a flagged site, to see later where they go
        (flow.py). The first few draws of each site only: two are compared, and every label
        slows the program down."""
        from jaxlint.confirm.flow import FLOW

        label = claim(draw)
        if label is None:
            return
        FLOW.start()
        FLOW.mark(jax.tree_util.tree_leaves(out), frozenset({label}))

    def claim(draw: dict):
        """A label for a draw at a flagged site, while fewer than _FOLLOWED were labelled there."""
        from jaxlint.confirm.flow import FLOW

        sites = state.get("draw_sites") or {}
        site = next((n for n in draw["lines"] if n in sites), None)
        if site is None or sites[site] >= _FOLLOWED or not FLOW.enabled:
            return None
        sites[site] += 1
        draw["id"] = state["draw_ids"] = state.get("draw_ids", 0) + 1
        return draw["id"]

    from jaxlint.confirm.flow import FLOW as _flow
    _flow.claim = claim

    def wrap(name, fn):
        def draw(key, *args, **kwargs):
            out = fn(key, *args, **kwargs)
            target = state.get("path")
            if target is None:
                return out
            lines = lines_in_target(target)
            if not lines:
                return out
            via = _via_parameter(target, state.get("param_sites") or {}, key)
            try:
                bits = as_data(key)
                head = as_data(jax.tree_util.tree_leaves(out)[0]).ravel()[:_HEAD]
                order = _order(fn, key, args, kwargs) if name == "permutation" else None
                order = head if order is None else order[:_HEAD]
                if not any(isinstance(x, jax.core.Tracer) for x in (bits, head, order)):
                    record(name, lines, bits, head, order)
                    if via is not None:
                        state["draws"][-1]["via"] = via
                    follow(state["draws"][-1], out)
                elif state.get("traced_draws"):
                    # Runs when the program's compiled computation runs, with its values; the
                    # tag lets the flow find the draw in the jaxpr (flow.compiled_draws) and
                    # label the outputs its numbers reach, once the call returns.
                    site = {"records": []}

                    def ran(b, h, o, site=site):
                        record(name, lines, b, h, o, True)
                        site["records"].append(state["draws"][-1])

                    ran._jaxlint_site = site
                    jax.debug.callback(ran, bits, head, order)
                    from jaxlint.confirm.flow import FLOW
                    if FLOW.enabled and any(n in (state.get("draw_sites") or {}) for n in lines):
                        FLOW.start()  # follow the program's calls from this (first) trace on
            except Exception:  # noqa: BLE001 - an odd key or a transform without callbacks
                pass
            return out

        draw.__wrapped__ = fn
        draw.__name__ = name
        return draw

    for name in _SAMPLERS:
        fn = getattr(jax.random, name, None)
        if fn is not None:
            setattr(jax.random, name, wrap(name, fn))


def draw_sites(findings: list[dict]) -> dict[int, int]:
    """The lines of the key-reuse findings' draws (the flagged lines and the earlier draw
    each names), each with a count of the draws followed there."""
    sites: dict[int, int] = {}
    for f in findings:
        confirm = f.get("confirm") or {}
        if not (str(f.get("code")).startswith("JAX50") or confirm.get("kind") == "prng"):
            continue
        lines = set(range(f["line"], max(f.get("end_line") or f["line"], f["line"]) + 1))
        for other in (confirm.get("previous_line"), confirm.get("draw_line")):
            if isinstance(other, int) or str(other).isdigit():
                lines.add(int(other))
        sites.update((n, 0) for n in lines)
    return sites


def param_sites(findings: list[dict]) -> dict[int, str]:
    """The lines of the findings that one call passes one key to two parameters
    (`model.init(rng, rng, x)`: JAX501 naming its own line as the earlier draw), with the key."""
    out: dict[int, str] = {}
    for f in findings:
        confirm = f.get("confirm") or {}
        if str(f.get("code")) == "JAX501" and confirm.get("previous_line") == f["line"] \
                and isinstance(confirm.get("key"), str):
            out[f["line"]] = confirm["key"]
    return out


def _via_parameter(target: str, sites: dict[int, str], key) -> Optional[tuple[int, str]]:
    """For a draw under a call at one of `sites` (a line passing one key to two parameters):
    (that line, the callee's parameter through which the key reached the draw). The callee
    is the frame the site's frame called; its parameters holding the site's key object are
    the ones the call passed it to, and the one its running statement names is the one this
    draw came through. None when no such site is on the stack, or no single parameter is
    named (a wrapper's `*args`, a key split first: the draw is not attributed)."""
    if not sites:
        return None
    frame, inner = sys._getframe(2), None
    while frame is not None:
        line = frame.f_lineno
        if line in sites and inner is not None \
                and os.path.realpath(frame.f_code.co_filename) == target:
            passed = _local(frame, sites[line])
            code = inner.f_code
            params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
            held = {p for p in params if passed is not None and inner.f_locals.get(p) is passed}
            named = held & _names_at(code.co_filename, inner.f_lineno)
            # The draw's key is the very object the site passed (a key split or rebuilt on
            # the way is another key: not attributed).
            if key is passed and len(named) == 1:
                return line, named.pop()
            return None
        inner, frame = frame, frame.f_back
    return None


def _local(frame, expr: str):
    """The value of a key expression (`rng`, `keys[0]`) in a frame, or None."""
    m = re.fullmatch(r"([A-Za-z_]\w*)(?:\[(-?\d+)\])?", expr)
    if m is None or m.group(1) not in frame.f_locals:
        return None
    value = frame.f_locals[m.group(1)]
    try:
        return value[int(m.group(2))] if m.group(2) is not None else value
    except Exception:  # noqa: BLE001
        return None


_NAMES: dict[tuple[str, int], frozenset] = {}
_TREES: dict = {}


def _names_at(path: str, line: int) -> frozenset:
    """The names the statement running at `line` reads (a compound statement's header only)."""
    got = _NAMES.get((path, line))
    if got is not None:
        return got
    import ast
    import linecache

    names: set[str] = set()
    if path not in _TREES:
        try:
            _TREES[path] = ast.parse("".join(linecache.getlines(path)))
        except (SyntaxError, ValueError):
            _TREES[path] = None
    tree = _TREES[path]
    best = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is None or node.lineno >= best.lineno:
                best = node
    if best is not None:
        body = getattr(best, "body", None)
        last = body[0].lineno - 1 if isinstance(body, list) and body else best.end_lineno
        names = {n.id for n in ast.walk(best) if isinstance(n, ast.Name)
                 and best.lineno <= n.lineno <= (last or best.lineno)}
    _NAMES[(path, line)] = frozenset(names)
    return _NAMES[(path, line)]


def _order(permutation, key, args, kwargs):
    """The order a permutation of an array applied: it depends on the key and the length
    only (`permutation(key, n)`), so two permutations of different data with one key are
    seen to be the same shuffle. None for an independent (per-row) shuffle."""
    import numpy as np

    names = ("x", "axis", "independent")
    given = {**dict(zip(names, args)), **kwargs}
    x, axis = given.get("x"), given.get("axis", 0)
    if given.get("independent") and np.ndim(x) > 1:
        return None
    n = x if np.ndim(x) == 0 else np.shape(x)[axis]
    return permutation(key, n)


_FOLLOWED = 4  # draws followed per flagged site
_HEAD = 8  # numbers kept per draw: enough to see that two draws' numbers are the same


def _import(job: dict, index: int, code: types.CodeType, cell_errors: list, timeout: float):
    """Run the file as a module: by its dotted name inside a package, else from `code` (the
    file's text, the stdin text, or a notebook's code cells in order)."""
    path = job["path"]
    sys.path.insert(0, os.path.dirname(path))
    if job.get("package_root") and "source" not in job:
        sys.path.insert(0, job["package_root"])
        return importlib.import_module(job["modname"])
    name = f"_jaxlint_target_{index}"
    job["_budget"] = timeout * 0.6
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    if not job.get("cells"):
        exec(code, module.__dict__)
        return module
    # A notebook: each cell on its own, in order. As in a kernel, a cell that raises does not
    # stop the next one; its error is kept (it may be the evidence for a finding in it). A
    # kernel runs the cells as `__main__` (IPython's user module), so `if __name__ ==
    # "__main__":` cells run there.
    module.__name__ = "__main__"
    sys.modules["__main__"] = module
    lines = job["source"].splitlines()
    seen = module.__dict__.setdefault("__jaxlint_defined__", [])
    # The import's own alarm is off for a notebook: each cell gets its own, so a slow cell
    # (a big benchmark) is stopped and the later cells still run, within the total.
    signal.setitimer(signal.ITIMER_REAL, 0)
    deadline = time.monotonic() + job["_budget"]
    for first, last in job["cells"]:
        left = deadline - time.monotonic()
        if left <= 0.05:
            cell_errors.append(_CellTimeout(f"the cells from line {first} on did not run: "
                                            f"the notebook's time was spent"))
            break
        chunk = "\n" * (first - 1) + "\n".join(lines[first - 1:last]) + "\n"
        signal.setitimer(signal.ITIMER_REAL, min(left, max(1.0, job["_budget"] / 3)))
        try:
            exec(compile(chunk, path, "exec"), module.__dict__)
        except _Timeout:
            cell_errors.append(_CellTimeout(f"the cell at line {first} was stopped: too slow"))
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's cell failed
            cell_errors.append(exc)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        # Notebooks redefine `f` cell after cell: keep every definition findable.
        for name, value in list(vars(module).items()):
            if callable(value) and not name.startswith("__") and \
                    all(v is not value for _, v in seen):
                seen.append((name, value))
    return module


class _CellTimeout(Exception):
    """A notebook cell stopped for time; kept with the cells' errors."""


def _cell_not_run(job: dict, finding: dict, cell_errors: list, watch) -> Optional[int]:
    """The first line of the cell holding the flagged code (its function's, else its own line)
    when that cell never ran and a cell was stopped for time, else None."""
    if not any(isinstance(e, _CellTimeout) for e in cell_errors):
        return None
    at = finding.get("function_line") or finding["line"]
    for first, last in job.get("cells") or ():
        if first <= at <= last:
            return first if not watch.ran(first, last) else None
    return None


def _timeouts(cell_errors: list) -> str:
    return "; ".join(str(e) for e in cell_errors if isinstance(e, _CellTimeout))[:300]


def _alarm(signum, frame):
    raise _Timeout()


def _source(job: dict) -> str:
    if "source" in job:
        return job["source"]
    with open(job["path"], encoding="utf-8") as fh:
        return fh.read()


def _dict(result) -> dict:
    return result.to_dict() if hasattr(result, "to_dict") else dict(result)


def run_file(job: dict, index: int, state: State, jax, timeout: float) -> list[dict]:
    from jaxlint.confirm import verdicts
    from jaxlint.confirm.target import LineWatch, all_codes, find_target_code
    from jaxlint.confirm.verdicts import imported, removed_api
    from jaxlint.confirm.verdicts.base import COULD_NOT_RUN, CompileBudget, Job, Unrunnable, \
        first_line, verdict

    def could_not_run(summary: str, evidence: str = "") -> dict:
        return verdict(COULD_NOT_RUN, summary, evidence).to_dict()

    path = os.path.realpath(job["path"])
    findings = job["findings"]
    # Draws under jit are recorded by a callback the program's computation runs: only where a
    # key-reuse finding needs them.
    state["traced_draws"] = any(str(f.get("code")).startswith("JAX50")
                                or (f.get("confirm") or {}).get("kind") == "prng" for f in findings)
    state.update(path=path, misses=[], draws=[], compiles=collections.Counter(), compile_sites=[],
                 budget=state["budget_total"] * 5)
    from jaxlint.confirm.flow import FLOW
    FLOW.reset(path, enabled=state["traced_draws"])  # where the draws' numbers go: JAX5xx only
    state["draw_sites"] = draw_sites(findings)
    state["param_sites"] = param_sites(findings)
    try:
        text = _source(job)
        source = compile(text, path, "exec")
    except FileNotFoundError as exc:
        return [could_not_run("the file is missing", first_line(exc))] * len(findings)
    except Exception as exc:  # noqa: BLE001
        return [could_not_run("cannot compile the file", first_line(exc))] * len(findings)
    # Tracebacks and evidence quote lines from the text that ran, not from the disk.
    linecache.cache[path] = (len(text), None, text.splitlines(True), path)
    state["user_names"] = {c.co_name for c in all_codes(source)}
    state["examples"] = job.get("examples") or {}
    watch = LineWatch(path)
    from jaxlint.confirm.verdicts import probe as probes
    state["probes"] = probes.probes_for(path, findings)
    state["linked"] = {i: probes.linked_probes(path, f.get("function")) for i, f in
                       enumerate(findings) if f.get("code") == "JAX701"}
    state["starts"] = probes.start_probes(path, findings)
    for i, f in enumerate(findings):
        f["_index"] = i
    for p in list(state["probes"].values()) + [p for ps in state["linked"].values() for p in ps] \
            + list(state["starts"].values()):
        watch.add_probe(p)
    state["import_warnings"] = []
    from jaxlint.confirm.verdicts import jit_watch
    state["live_watch"] = watch
    jit_watch.install(state, path, findings)
    started = time.monotonic()
    import_error = None
    module = None
    cell_errors: list[BaseException] = []
    try:
        signal.setitimer(signal.ITIMER_REAL, max(1.0, timeout * 0.8))
        try:
            with watch, warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    module = _import(job, index, source, cell_errors, timeout)
                finally:
                    state["import_warnings"] = [(w.category.__name__, w.filename, w.lineno,
                                                 str(w.message)) for w in caught[:200]]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Timeout:
        return [could_not_run("import timed out", f"importing {path} took over "
                                                  f"{timeout * 0.8:.0f} s")] * len(findings)
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt from user code
        import_error = exc
        # What ran before the error is defined: the recipes still run on it.
        module = sys.modules.get(f"_jaxlint_target_{index}") or sys.modules.get(job.get("modname") or "")
    state["import_misses"] = list(state["misses"])
    state["import_sites"] = list(state["compile_sites"])
    jitted = state.get("jit_watch")
    if jitted is not None:
        jitted.imported = len(jitted.made)  # what the program's own import made
    state["import_watch"] = watch
    if state["traced_draws"]:
        try:
            jax.effects_barrier()  # the callbacks of draws still computing
        except Exception:  # noqa: BLE001 - a computation of the program failed; its error showed
            pass
    state["import_draws"] = list(state["draws"])
    FLOW.stop()  # the other recipes run at full speed; the key-reuse one restarts it
    FLOW.enabled = False
    state["import_error"] = import_error
    out = []
    for i, f in enumerate(findings):
        kind = (f.get("confirm") or {}).get("kind")
        recipe = verdicts.recipe_for(f.get("code") or "", kind)
        if f.get("plan_error"):
            out.append(could_not_run("the confirm planner failed", f["plan_error"]))
            continue
        if recipe is None:
            out.append(could_not_run(f"no confirm recipe for this rule (kind: {kind or 'none'})"))
            continue
        code = find_target_code(source, f.get("function"), f.get("function_line"), f["line"])
        if import_error is not None:
            # The import is a run too: an error raised at the flagged line is the evidence.
            result = _dict(imported.import_verdict(path, f, code, import_error, state))
            if result["verdict"] != COULD_NOT_RUN or module is None or kind == "removed-api":
                out.append(result)
                continue
        here = [e for e in cell_errors if imported.raised_at(
            e, path, f["line"], max(f.get("end_line") or f["line"], f["line"]))]
        if here and kind != "removed-api":
            out.append(_dict(imported.import_verdict(path, f, code, here[0], state)))
            continue
        if kind == "removed-api":
            line = f["line"]
            out.append(_dict(removed_api.removed(path, f, None, removed_api._ran_anywhere(
                watch, line, max(f.get("end_line") or line, line)))))
            continue
        rjob = Job(module, path, f, code, state)
        left = timeout * 0.9 - (time.monotonic() - started)
        budget = max(0.5, left / (len(findings) - i))
        # The compile limit stops runaway loops; only recompile probes need a small one.
        state["budget"] = state["budget_total"] if kind in ("recompile", "overhead") else 10**9
        state["spent"] = 0
        try:
            signal.setitimer(signal.ITIMER_REAL, budget)
            try:
                result = _dict(recipe(rjob))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _Timeout:
            result = could_not_run("timed out", f"confirming took over {budget:.1f} s (time limit)")
        except Unrunnable as exc:
            result = could_not_run(str(exc).split(":")[0][:80], str(exc))
        except CompileBudget as exc:
            result = could_not_run("compile limit hit", f"{exc} while running the function, "
                                                        f"before a verdict")
        except BaseException as exc:  # noqa: BLE001 - SystemExit from user code included
            tb = traceback.extract_tb(exc.__traceback__)
            where = f" ({tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno})" if tb else ""
            result = could_not_run("confirm mode failed", first_line(exc) + where)
        if import_error is not None and result.get("verdict") == COULD_NOT_RUN:
            # What stopped the import is the reason first (a missing package, a file).
            first = _dict(imported.import_verdict(path, f, code, import_error, state))
            first["evidence"] = f"{first.get('evidence') or ''}; then: {result.get('summary')}"
            result = first
        unrun = _cell_not_run(job, f, cell_errors, watch)
        if unrun is not None and result.get("verdict") == COULD_NOT_RUN:
            # The flagged code's cell never ran because the notebook's time was spent: that,
            # not what the recipe then lacked (a function not defined), is why.
            result = could_not_run("the notebook's time limit was spent before this cell ran",
                                   f"the cell from line {unrun} on never ran: "
                                   f"{_timeouts(cell_errors)}; then: {result.get('summary')}")
        if cell_errors and result.get("verdict") == COULD_NOT_RUN:
            failed = ", ".join(f"{type(e).__name__} at line {fr.line}" if (
                fr := imported.innermost_user_frame(e)) is not None else str(e)
                for e in cell_errors[:4])
            result["evidence"] = f"{result.get('evidence') or ''}; earlier cells failed: " \
                                 f"{failed}".lstrip("; ")
        if rjob.factory_args and result.get("verdict") != COULD_NOT_RUN:
            result["shapes"] = f"{rjob.factory_args}; {result.get('shapes') or ''}".strip("; ")
        if result.get("shapes") and result["shapes"] not in (result.get("evidence") or ""):
            # Say which arguments ran, and how they were made.
            result["evidence"] = f"{result.get('evidence') or ''}; arguments: " \
                                 f"{result['shapes']}".lstrip("; ")
        out.append(result)
    return out


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return "unknown"


def _could_not_run(n: int, summary: str, evidence: str) -> list[dict]:
    return [{"verdict": "could not run", "summary": summary, "evidence": evidence, "shapes": ""}
            for _ in range(n)]


def _in_fork(fn, timeout: float, out_path: str) -> tuple[str, int]:
    """Run `fn()` in a fork that writes its JSON result to out_path. Returns how it ended:
    ("ok", 0), ("timeout", 0), ("exit", code) or ("signal", number)."""
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the fork: its own process group, so a hang is killed with its children
        code = 0
        try:
            os.setpgid(0, 0)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the worker's _die_with_jaxlint
            # Out of the worker's group, so the kill of that group misses it: die with the worker.
            processes._die_with_parent(parent)
            signal.signal(signal.SIGALRM, _alarm)
            _write(out_path, fn())
        except BaseException:  # noqa: BLE001
            traceback.print_exc()
            code = 70
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)  # no atexit handlers of user code, no jax shutdown
    # The parent's cleanup reads this: the fork is not in the worker's process group.
    _current_fork[:] = [pid]
    _write(out_path + ".pid", {"pid": pid})
    deadline = time.monotonic() + timeout
    delay = 0.001
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
                try:
                    kill()
                except (ProcessLookupError, PermissionError):
                    pass
            os.waitpid(pid, 0)
            return "timeout", 0
        time.sleep(delay)
        delay = min(0.01, delay * 2)
    try:
        # What the user's code started (a `subprocess.Popen` at import) outlives the fork in
        # its process group: the fork's time limit ended its import, not its children.
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    _current_fork.clear()
    if os.WIFSIGNALED(status):
        return "signal", os.WTERMSIG(status)
    return "exit", os.WEXITSTATUS(status)


def _device(jax) -> dict:
    devices = jax.devices()
    return {"device": devices[0].device_kind or devices[0].platform,
            "platform": {"backend": jax.default_backend(), "device_kind": str(devices[0].device_kind),
                         "jax": jax.__version__}}


_current_fork: list = []  # the pid of the fork running now, for _orphaned


def _die_with_jaxlint(workdir: str) -> None:
    """This worker has its own session, so the jaxlint process that started it cleans it up
    on Ctrl-C or SIGTERM. If that process dies without cleaning up (SIGKILL, a crash, a killed
    test run), the kernel sends SIGTERM here (Linux): the worker stops its fork, removes its
    folder and exits, rather than confirming every remaining file for nobody."""
    def orphaned(signum, frame):
        for pid in _current_fork:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
        os._exit(1)

    signal.signal(signal.SIGTERM, orphaned)
    if processes._LIBC is None:  # pragma: no cover - not Linux
        return
    try:
        processes._LIBC.prctl(processes._PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover
        return
    parent = os.environ.get(PARENT_ENV, "")
    if parent.isdigit() and os.getppid() != int(parent):  # it died before the prctl
        orphaned(signal.SIGTERM, None)


PARENT_ENV = "JAXLINT_CONFIRM_PARENT"


def main(argv: list[str]) -> int:
    workdir, start = argv[0], int(argv[1])
    _die_with_jaxlint(workdir)
    with open(os.path.join(workdir, "jobs.json"), encoding="utf-8") as fh:
        spec = json.load(fh)
    try:
        import jax
        import jax.numpy  # noqa: F401 - imported once here, shared by every fork
    except BaseException as exc:  # noqa: BLE001
        _write(os.path.join(workdir, f"failed-{start}.json"), {"error": f"{type(exc).__name__}: {exc}"})
        return 1
    state = State(budget_total=spec.get("compile_budget", 20))
    _install(state, jax)
    import jaxlint.confirm.verdicts  # noqa: F401 - imported before the forks, once
    # The backend starts in a fork (never here): ask one fork which device JAX picks.
    probe = os.path.join(workdir, f"device-{start}.json")
    how, code = _in_fork(lambda: _device(jax), _PROBE_TIMEOUT, probe)
    if how != "ok" and not (how == "exit" and code == 0 and os.path.exists(probe)):
        why = {"timeout": "timed out", "signal": f"killed by signal {code}"}.get(
            how, f"exited with code {code}")
        _write(os.path.join(workdir, f"failed-{start}.json"),
               {"error": f"starting the backend {why}"})
        return 1
    with open(probe, encoding="utf-8") as fh:
        probed = json.load(fh)
    device = probed["device"]
    # Every verdict names it; the forks need not start a backend to say it.
    from jaxlint.confirm.verdicts import base
    base.set_platform(probed["platform"])
    _write(os.path.join(workdir, f"ready-{start}.json"), {"device": device})
    jobs, timeout = spec["jobs"], spec["timeout"]
    for index in range(start, len(jobs)):
        open(os.path.join(workdir, f"start-{index}"), "w").close()
        job = jobs[index]
        out = os.path.join(workdir, f"fork-{index}.json")
        t0 = time.monotonic()
        how, code = _in_fork(lambda: {"results": run_file(job, index, state, jax, timeout)},
                             timeout, out)
        if os.environ.get("JAXLINT_CONFIRM_TIMES"):
            with open(os.environ["JAXLINT_CONFIRM_TIMES"], "a", encoding="utf-8") as fh:
                fh.write(f"{time.monotonic() - t0:.3f} {job['path']}\n")
        n = len(job["findings"])
        if how == "exit" and code == 0 and os.path.exists(out):
            with open(out, encoding="utf-8") as fh:
                results = json.load(fh)["results"]
        elif how == "timeout":
            results = _could_not_run(n, f"timed out after {timeout:g} s",
                                     f"importing or running {job['path']} took over "
                                     f"{timeout:g} s; its process was killed")
        else:
            what = f"was killed by signal {code} ({_signal_name(code)})" if how == "signal" \
                else f"exited with code {code}"
            results = _could_not_run(n, f"the interpreter {what}",
                                     f"the process confirming {job['path']} {what}")
        for r in results:
            r["device"] = device
        _write(os.path.join(workdir, f"result-{index}.json"), {"results": results})
    return 0


_PROBE_TIMEOUT = 120.0

if __name__ == "__main__":
    # User code prints: keep our own stdout out of the protocol entirely.
    sys.exit(main(sys.argv[1:]))
