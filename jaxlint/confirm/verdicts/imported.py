"""The import is a run too: an error the program raised while its module-level code ran.

It confirms a finding when it is the predicted error, raised at the flagged line, or raised
calling, on a later line, the object the flagged line made (`grad_fn = jax.grad(f, argnums=2)`
at the flagged line, `grad_fn(w, x)` below it).
"""

from __future__ import annotations

import ast
import dataclasses
import linecache
import os
import re
import types
from typing import ClassVar, Optional

from jaxlint.confirm.target import code_key, excerpt, innermost_user_frame, raised_at
from jaxlint.confirm.verdicts import compile_count, removed_api, trace_error
from jaxlint.confirm.verdicts.base import (CONFIRMED, COULD_NOT_RUN, CompileBudget, Evidence, Job,
                                           Verdict, first_line, verdict)

# Exceptions that are themselves the predicted problem when the flagged line raises them.
_IMPORT_EVIDENCE = {
    "leak": ("UnexpectedTracerError",),
    "removed-api": ("AttributeError", "ImportError", "ModuleNotFoundError"),
}


@dataclasses.dataclass
class ImportEvidence(Evidence):
    """An exception the program raised while importing."""

    kind: ClassVar[str] = "import-error"
    exception: str = ""
    message: str = ""
    raised_line: int = 0
    traceback: str = ""
    via: str = ""  # the name made at the flagged line and called where it raised

    def text(self) -> str:
        via = f"; raised calling `{self.via}`, made at the flagged line" if self.via else ""
        return f"{self.exception}: {self.message}{via}; traceback: {self.traceback}"



def _bound_at(path: str, line: int, end_line: int) -> set[str]:
    """Names the statement at the flagged lines binds: `g = jax.grad(f)`, `@jax.grad def g`."""
    tree = _tree(path)
    out: set[str] = set()
    if tree is None:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and line <= node.lineno <= end_line:
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                line <= d.lineno <= end_line for d in node.decorator_list):
            out.add(node.name)
    return out


def _called_at(path: str, line: int) -> set[str]:
    """Names called at the line: `g(x)`, and a method `Policy(2).act(x)` by its name."""
    tree = _tree(path)
    return {n.func.id if isinstance(n.func, ast.Name) else n.func.attr
            for n in ast.walk(tree) if isinstance(n, ast.Call)
            and isinstance(n.func, (ast.Name, ast.Attribute))
            and n.lineno <= line <= (n.end_lineno or n.lineno)} \
        if tree is not None else set()


def _tree(path: str) -> Optional[ast.Module]:
    try:
        return ast.parse("".join(linecache.getlines(path)))
    except (SyntaxError, ValueError):
        return None


def import_verdict(path: str, finding: dict, target: Optional[types.CodeType],
                   exc: BaseException, state: dict) -> Verdict:
    kind = (finding.get("confirm") or {}).get("kind")
    line = finding["line"]
    end_line = max(finding.get("end_line") or line, line)
    key = code_key(target) if target is not None else None
    if isinstance(exc, CompileBudget):
        if kind in ("recompile", "overhead"):
            job = Job(None, path, finding, target, state)
            misses = compile_count.misses_at(job, state["misses"]) or compile_count.compiled_at(
                job, state["misses"], state.get("compile_sites") or [])
            if len(misses) >= 2 and kind == "recompile":
                return verdict(CONFIRMED, f"{len(misses)} compiles at line {line} during import",
                               compile_count.CompileEvidence(
                                   compiles=len(misses), calls=len(misses), how="importing",
                                   miss=misses[min(1, len(misses) - 1)].strip(),
                                   note=f"the import was stopped by the compile limit ({exc}); "
                                        f"{len(misses)} cache misses were at line {line}"))
        where = compile_count.last_miss_line(path, state["misses"])
        return verdict(COULD_NOT_RUN, "import stopped by the compile limit",
                       f"{exc} while importing, "
                       + (f"the compiles were at line {where}, not line {line}" if where
                          and not line <= where <= end_line else "before the flagged code ran"))
    at_line = raised_at(exc, path, line, end_line, key) or (
        key is not None and raised_at(exc, path, line, end_line))
    name = type(exc).__name__
    frame = innermost_user_frame(exc)
    record = ImportEvidence(exception=name, message=first_line(exc)[len(name) + 2:],
                            raised_line=frame.line if frame is not None else 0,
                            traceback=excerpt(exc))
    if kind == "removed-api":
        watch = state.get("live_watch")
        return removed_api.removed(path, finding, exc, removed_api._ran_anywhere(
            watch, line, end_line))
    via = set()
    if not at_line and frame is not None and os.path.realpath(frame.filename) == os.path.realpath(path):
        via = _bound_at(path, line, end_line) & _called_at(path, frame.line)
    if at_line or via:
        expected = (finding.get("confirm") or {}).get("expected")
        wanted = _IMPORT_EVIDENCE.get(kind, ())
        if kind == "trace-error" and expected:
            ok = trace_error.is_expected(Job(None, path, finding, target, state), exc)
        else:
            ok = name in wanted
        if ok:
            record.via = ", ".join(sorted(via))
            return verdict(CONFIRMED, f"{name} at line {record.raised_line} during import", record)
        if at_line:
            return verdict(COULD_NOT_RUN, f"import failed at line {line} with {name}",
                           f"{record.text()}; the rule predicts "
                           f"{expected or ' or '.join(wanted) or 'another failure'}")
    where = f" at {frame.where()}" if frame is not None else ""
    return verdict(COULD_NOT_RUN, f"{_missing(exc)}import failed{where}", record.text())


def _missing(exc: BaseException) -> str:
    """What the machine lacks, when the import says so: a module (a package not installed, or
    one of the project's own not on the path), a name a module lacks (another version is
    installed), a file (a data set, a checkpoint) or a device (a GPU, a device count), named
    first in the summary."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return f"missing module {exc.name}: "
    if isinstance(exc, ImportError) and exc.name and exc.name.split(".")[0] != "jax":
        # `from pkg import name` that pkg lacks: the installed version differs from the
        # project's (a removed jax name is JAX9xx's evidence, not a missing package).
        return f"missing name in module {exc.name} (another version installed): "
    if isinstance(exc, FileNotFoundError):
        return f"missing file {exc.filename or ''}: ".replace(" :", ":")
    if _DEVICE.search(str(exc)):
        return f"missing device ({_clip(first_line(exc))}): "
    frame = innermost_user_frame(exc)
    if isinstance(exc, AssertionError) and frame is not None and \
            _DEVICE_CALL.search(linecache.getline(frame.filename, frame.line)):
        # `assert jax.device_count() >= 8`: the program wants more devices than this machine.
        return f"missing device (line {frame.line} asserts the device count): "
    return ""


# What JAX says when a backend or devices the program asks for are not on this machine.
_DEVICE = re.compile(r"Unknown backend|no platforms that are instances of|"
                     r"not enough devices|devices? (?:is|are) not available|"
                     r"requires? (?:at least )?\d+ devices|number of devices", re.I)
_DEVICE_CALL = re.compile(r"\b(device_count|local_device_count|devices|local_devices|"
                          r"process_count)\s*\(")


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n - 3] + "..."
