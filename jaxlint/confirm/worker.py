"""The child process of confirm mode: imports jax once, then confirms file after file.

    python -m jaxlint.confirm.worker WORKDIR START

Reads WORKDIR/jobs.json; for each file from index START on, writes WORKDIR/start-<i> when it
begins and WORKDIR/result-<i>.json when done (results go through files, because user code
writes to stdout). The parent kills this process group if a file takes too long, and starts a
fresh worker at the next index.
"""

from __future__ import annotations

import collections
import importlib
import importlib.util
import json
import logging
import os
import signal
import sys
import time
import traceback


def _write(path: str, data) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.replace(tmp, path)


class _Timeout(BaseException):
    """Raised by the alarm when one finding takes too long."""


class State(dict):
    """Compile counts, cache-miss records and random draws, shared with the recipes."""


def _install(state: State, jax) -> None:
    from jaxlint.confirm.recipes import CompileBudget

    jax.config.update("jax_explain_cache_misses", True)

    def on_duration(name, secs, fun_name=None, **kw):
        if name == "/jax/core/compile/backend_compile_duration":
            state["compiles"][fun_name] += 1
            # Eager ops compile too (jit(iota)): only the file's own functions spend the budget.
            if str(fun_name)[4:-1] not in state.get("user_names", ()):
                return
            state["budget"] -= 1
            if state["budget"] < 0:
                state["budget"] = state["budget_total"]
                raise CompileBudget(f"stopped after {state['budget_total']} compiles")

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


_SAMPLERS = ("normal", "uniform", "randint", "bernoulli", "choice", "permutation", "categorical",
             "gumbel", "truncated_normal", "exponential", "gamma", "beta", "poisson", "laplace",
             "logistic", "cauchy", "dirichlet", "multivariate_normal", "rademacher", "bits",
             "split", "fold_in", "orthogonal", "ball", "t", "binomial", "chisquare")


def _patch_random(state: State, jax) -> None:
    """Record each draw with a concrete key: caller line in the target file, key bits, value."""
    import numpy as np

    def wrap(name, fn):
        def draw(key, *args, **kwargs):
            out = fn(key, *args, **kwargs)
            target = state.get("path")
            if target is None or isinstance(key, jax.core.Tracer):
                return out
            frame = sys._getframe(1)
            while frame is not None and os.path.realpath(frame.f_code.co_filename) != target:
                frame = frame.f_back
            if frame is None:
                return out
            try:
                data = key
                if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key):
                    data = jax.random.key_data(key)
                bits = np.asarray(data).ravel().tolist()
                value = np.asarray(jax.tree_util.tree_leaves(out)[0]).ravel()[:3].tolist()
            except Exception:  # noqa: BLE001 - a tracer or an odd key: skip
                return out
            state["draws"].append({"fn": name, "line": frame.f_lineno, "key": str(bits),
                                   "value": str([round(v, 4) if isinstance(v, float) else v
                                                 for v in value])})
            return out

        draw.__wrapped__ = fn
        draw.__name__ = name
        return draw

    for name in _SAMPLERS:
        fn = getattr(jax.random, name, None)
        if fn is not None:
            setattr(jax.random, name, wrap(name, fn))


def _import(job: dict, index: int):
    path = job["path"]
    sys.path.insert(0, os.path.dirname(path))
    if job.get("package_root"):
        sys.path.insert(0, job["package_root"])
        return importlib.import_module(job["modname"])
    name = f"_jaxlint_target_{index}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _alarm(signum, frame):
    raise _Timeout()


def run_file(job: dict, index: int, state: State, jax, timeout: float) -> list[dict]:
    from jaxlint.confirm import recipes
    from jaxlint.confirm.target import LineWatch, all_codes, find_target_code

    path = os.path.realpath(job["path"])
    findings = job["findings"]
    state.update(path=path, misses=[], draws=[], compiles=collections.Counter(),
                 budget=state["budget_total"] * 5)
    try:
        with open(path, encoding="utf-8") as fh:
            source = compile(fh.read(), path, "exec")
    except Exception as exc:  # noqa: BLE001
        return [recipes.verdict(recipes.COULD_NOT_RUN, "cannot compile the file",
                                recipes.first_line(exc))] * len(findings)
    state["user_names"] = {c.co_name for c in all_codes(source)}
    watch = LineWatch(path)
    started = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, max(1.0, timeout * 0.8))
        try:
            with watch:
                module = _import(job, index)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Timeout:
        return [recipes.verdict(recipes.COULD_NOT_RUN, "import timed out",
                                f"importing {path} took over {timeout * 0.8:.0f} s")] * len(findings)
    except recipes.CompileBudget as exc:
        module = None
        import_error = exc
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt from user code
        # A removed JAX name is confirmed by the failure itself; the rest cannot run.
        return [recipes.removed_api(path, f, exc) if (f.get("confirm") or {}).get("kind")
                == "removed-api" else recipes.verdict(recipes.COULD_NOT_RUN, "import failed",
                                                      recipes.first_line(exc))
                for f in findings]
    else:
        import_error = None
    state["import_misses"] = list(state["misses"])
    state["import_watch"] = watch
    state["import_draws"] = list(state["draws"])
    out = []
    for i, f in enumerate(findings):
        kind = (f.get("confirm") or {}).get("kind")
        recipe = recipes.RECIPES.get(kind)
        if recipe is None:
            out.append(recipes.verdict(recipes.COULD_NOT_RUN,
                                       f"no confirm recipe for this rule (kind: {kind or 'none'})"))
            continue
        if kind == "removed-api":
            out.append(recipes.removed_api(path, f, import_error))
            continue
        if module is None:
            if kind in ("recompile", "overhead"):
                out.append(recipes.verdict(recipes.CONFIRMED, "compile budget hit at import",
                                           f"{import_error}; " + "; ".join(
                                               m.strip().splitlines()[0]
                                               for m in state["misses"][-2:])))
            else:
                out.append(recipes.verdict(recipes.COULD_NOT_RUN, "import failed",
                                           str(import_error)))
            continue
        code = find_target_code(source, f.get("function"), f.get("function_line"), f["line"])
        rjob = recipes.Job(module, path, f, code, state)
        left = timeout * 0.9 - (time.monotonic() - started)
        budget = max(0.5, left / (len(findings) - i))
        # The compile budget stops runaway loops; only recompile probes need a small one.
        state["budget"] = state["budget_total"] if kind in ("recompile", "overhead") else 10**9
        try:
            signal.setitimer(signal.ITIMER_REAL, budget)
            try:
                result = recipe(rjob)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _Timeout:
            result = recipes.verdict(recipes.COULD_NOT_RUN, "timed out",
                                     f"confirming took over {budget:.1f} s")
        except recipes.Unrunnable as exc:
            result = recipes.verdict(recipes.COULD_NOT_RUN, str(exc).split(":")[0][:80], str(exc))
        except recipes.CompileBudget as exc:
            result = recipes.verdict(recipes.CONFIRMED if kind in ("recompile", "overhead")
                                     else recipes.COULD_NOT_RUN, "compile budget hit", str(exc))
        except BaseException as exc:  # noqa: BLE001 - SystemExit from user code included
            tb = traceback.extract_tb(exc.__traceback__)
            where = f" ({tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno})" if tb else ""
            result = recipes.verdict(recipes.COULD_NOT_RUN, "confirm mode failed",
                                     recipes.first_line(exc) + where)
        out.append(result)
    return out


def main(argv: list[str]) -> int:
    workdir, start = argv[0], int(argv[1])
    with open(os.path.join(workdir, "jobs.json"), encoding="utf-8") as fh:
        spec = json.load(fh)
    try:
        import jax

        devices = jax.devices()
        device = devices[0].device_kind or devices[0].platform
    except BaseException as exc:  # noqa: BLE001
        _write(os.path.join(workdir, f"failed-{start}.json"), {"error": f"{type(exc).__name__}: {exc}"})
        return 1
    state = State(budget_total=spec.get("compile_budget", 20))
    _install(state, jax)
    signal.signal(signal.SIGALRM, _alarm)
    _write(os.path.join(workdir, f"ready-{start}.json"), {"device": device})
    jobs = spec["jobs"]
    for index in range(start, len(jobs)):
        open(os.path.join(workdir, f"start-{index}"), "w").close()
        results = run_file(jobs[index], index, state, jax, spec["timeout"])
        for r in results:
            r["device"] = device
        _write(os.path.join(workdir, f"result-{index}.json"), {"results": results})
    return 0


if __name__ == "__main__":
    # User code prints: keep our own stdout out of the protocol entirely.
    sys.exit(main(sys.argv[1:]))
