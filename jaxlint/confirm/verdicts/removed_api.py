"""Removed and deprecated JAX APIs (JAX9xx): what the installed jax has."""

from __future__ import annotations

import io
import os
import re
import sys
from typing import ClassVar, Optional

import jax

import dataclasses
import functools
import importlib
import linecache
import importlib.util

from jaxlint.confirm.target import raised_at
from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, Evidence, Job,
                                           Verdict, first_line, verdict)
from jaxlint.engine.project import marked_root, project_root as engine_project_root


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


_ARRAY_ATTRIBUTE = "jax.Array."


def _array_attribute(dotted: str, called: bool):
    """Like `_resolve`, for an attribute of a real array of the installed jax (`jax.Array.to_py`):
    missing, or, when the program calls it, not callable (`x.device()` since `device` became a
    property)."""
    attr = dotted[len(_ARRAY_ATTRIBUTE):]
    array = jax.numpy.zeros(())
    try:
        value = getattr(array, attr)
    except AttributeError as exc:
        return False, dotted, exc
    if called and not callable(value):
        try:
            value()
        except TypeError as exc:
            return False, f"a callable {dotted}", exc
    return True, None, None


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


def removed(path: Optional[str], finding: dict, import_error: Optional[BaseException],
            ran: Optional[int] = None) -> Verdict:
    """A removed JAX name: confirmed when the installed jax lacks it and the line is reached:
    it ran, or it is module code, or its function is called or passed somewhere in the
    project. `ran`: how often the line ran while the program ran (None: not watched)."""
    absent = _absent(path, finding, import_error)
    if absent.verdict != CONFIRMED or ran or not path or not finding.get("function"):
        return absent
    if _import_error_at(path, finding["line"], max(finding.get("end_line") or 0, finding["line"]),
                        import_error):
        return absent
    # The line never ran here. A missing attribute raises whatever the arguments, so a call
    # from anywhere would show it; none anywhere in the project means it never runs.
    function = finding["function"]
    function_line = finding.get("function_line") or finding["line"]
    defined = _signature_scope(path, finding["line"], max(finding.get("end_line") or 0, finding["line"]),
                               (finding.get("confirm") or {}).get("removed") or "")
    if defined is not None:
        # An annotation, default or decorator of a `def` is evaluated when the `def` runs:
        # by the code around it (module code runs at import), not by a call of the function.
        function, function_line = defined
        if function is None:
            return absent
    caller = callers(path, function, function_line)
    what = absent.evidence.text()
    if caller is None:
        outer = function.rsplit(".<locals>.<lambda>", 1)[0]
        unused = f"the lambda is not passed on or read where it is made, or no code under " \
                 f"{project_root(path)} names `{_callee(outer)}`" if _callee(function) == "<lambda>" \
            else f"no code under {project_root(path)} names `{_callee(function)}`"
        return verdict(NOT_REPRODUCED, f"line {finding['line']} never runs: nothing in the "
                                       f"project calls {function}",
                       RemovedEvidence(note=f"{what}; but the program never ran line "
                                            f"{finding['line']}, and {unused} (its imports aside)"))
    return verdict(CONFIRMED, absent.summary,
                   RemovedEvidence(note=f"{what}; line {finding['line']} did not run here, but "
                                        f"{function} is used at {caller}: a call from there raises"))


def _absent(path: Optional[str], finding: dict, import_error: Optional[BaseException]) -> Verdict:
    """Whether the installed jax lacks the name the flagged line uses."""
    confirm = finding.get("confirm") or {}
    line = finding["line"]
    end_line = max(finding.get("end_line") or line, line)
    version = f"jax {jax.__version__}"
    failed_here = _import_error_at(path, line, end_line, import_error)
    import_note = f"; importing the file raised {first_line(import_error)} at line {line}" \
        if failed_here else ""
    module = confirm.get("removed_module")
    name = confirm.get("removed")
    source = "".join(_code_only(linecache.getline(path, n)) for n in range(line, end_line + 1)) \
        if path else ""
    tail = (name or module or "").rsplit(".", 1)[-1]
    # The line must use the removed name itself: `jax.tree_map`, or an import of it; a name
    # that only ends the same (`from jax.tree_util import tree_map`) is another API.
    parts = (name or module or "").split(".")
    # `jnp.alltrue` for jax.numpy.alltrue (its alias varies), `jax.tree_map` (not
    # `jax.tree_util.tree_map`), `xla_bridge.get_backend` for
    # jax.lib.xla_bridge.get_backend (jax.extend.backend.get_backend is another function).
    prev = parts[-2] if len(parts) >= 2 and parts[-2] != "numpy" else ""
    if (name or "").startswith(_ARRAY_ATTRIBUTE):
        prev = ""  # an attribute of any array: `x.device_buffer`, `out.to_py()`
    uses = re.search(rf"{re.escape(prev)}\.\s*{re.escape(tail)}\b", source) or (
        re.match(r"\s*(import|from)\b", source) and re.search(rf"\b{re.escape(tail)}\b", source))
    if module:
        # A removed submodule is used by an import of it (`jax.config.update(...)` reads the
        # attribute, which still exists).
        uses = module in _imported(source)
    if source and tail and not uses:
        return verdict(NOT_REPRODUCED, f"line {line} does not use {name or module}",
                       RemovedEvidence(name=name or module, version=version, present=False,
                                       note=f"the text of line {line} never names `{tail}`"))
    unevaluated = _never_evaluated(path, line, end_line, tail) if path and tail else None
    if unevaluated and not failed_here:
        # The installed jax lacking the name is not this program's failure: the program
        # never evaluates it here (or catches its absence), so only a run could show it.
        return verdict(NOT_REPRODUCED, f"line {line} never evaluates {name or module}",
                       RemovedEvidence(name=name or module, version=version, present=False,
                                       note=unevaluated))
    if module:
        if not _module_exists(module):
            return verdict(CONFIRMED, f"{version} has no module {module}",
                           RemovedEvidence(note=f"importlib.util.find_spec({module!r}) is None in "
                                                f"{version}{import_note}"))
        return verdict(NOT_REPRODUCED, f"{version} still has module {module}",
                       RemovedEvidence(note=f"importlib.util.find_spec({module!r}) found it in {version}"))
    if name:
        present, missing, exc = _array_attribute(name, bool(confirm.get("called"))) \
            if name.startswith(_ARRAY_ATTRIBUTE) else _resolve(name)
        if not present and missing.startswith("a callable"):
            return verdict(CONFIRMED, f"{version}'s {name} is not a method",
                           RemovedEvidence(note=f"calling {name} on an array of {version} raised "
                                                f"{first_line(exc)}{import_note}"))
        if not present:
            what = name if missing == name else f"{missing} (so no {name})"
            jax_says = f"; getattr says {first_line(exc)}" if exc is not None else ""
            return verdict(CONFIRMED, f"{version} has no {name}",
                           RemovedEvidence(note=f"{version} has no {what}{jax_says}{import_note}"))
        return verdict(NOT_REPRODUCED, f"{version} still has {name}",
                       RemovedEvidence(note=f"{name} resolves in the installed {version}"))
    if failed_here:
        return verdict(CONFIRMED, f"{type(import_error).__name__} at line {line}",
                       RemovedEvidence(note=first_line(import_error)))
    return verdict(COULD_NOT_RUN, "the rule named no removed API",
                   "the finding carries neither `removed` nor `removed_module`")




def project_root(path: str) -> str:
    """The nearest folder above `path` that holds a project marker; else, for a module inside a
    package, the folder its top package is imported from (code that imports `pkg.mod` sits
    there or below it); else the file's own folder."""
    folder = os.path.dirname(os.path.realpath(path))
    if marked_root(folder) is not None:
        return engine_project_root(folder)
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder = os.path.dirname(folder)
    return folder


_MAX_FILES = 3000


@functools.lru_cache(maxsize=8)
def _python_files(root: str) -> Optional[tuple[str, ...]]:
    """The project's code files, .py and notebooks (hidden folders skipped); None when there
    are too many."""
    files: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        files += [os.path.join(folder, n) for n in names if n.endswith((".py", ".ipynb"))]
        if len(files) > _MAX_FILES:
            return None
    return tuple(files)


def _code_text(file: str, real: str, name: str) -> Optional[str]:
    """A file's Python when its text names `name`: the text that ran for the target, a
    notebook's code cells joined; else None."""
    try:
        if file == real and linecache.getlines(file):
            text = "".join(linecache.getlines(file))
            return text if name in text else None
        with open(file, encoding="utf-8") as fh:
            text = fh.read()
        if name not in text:
            return None
        if file.endswith(".ipynb"):
            from jaxlint.confirm.sources import notebook_module
            return notebook_module(file)[0]
        from jaxlint.notebook import script_source
        script = script_source(text)  # a cell script: its cells' Python
        return text if script is None else script[0]
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def _callee(function: str) -> str:
    """The name a use of `function` spells: a method's own name, a class for `__init__`."""
    parts = function.split(".")
    if parts[-1] == "__init__" and len(parts) > 1:
        return parts[-2]
    return parts[-1]


def callers(path: str, function: str, function_line: Optional[int] = None,
            _seen: Optional[set] = None) -> Optional[str]:
    """`file:line` of a use of `function` in the project (a call, or the name passed on), or
    None. Imports and the def itself are no use. Special methods other than `__init__` are
    called by Python itself: always used; a test function in a test file is called by pytest.
    A lambda (`f.<locals>.<lambda>`) is used where it is passed on or its name is read inside
    the function that makes it, once that function is used. A use inside a function of a
    script (a file outside any package) counts when that function is used in turn (followed a
    few calls deep): a script's functions run only when the script calls them, while a
    package's are called by importers that may sit outside the project."""
    import ast

    name = _callee(function)
    parts = function.split(".")
    if name.startswith("__") and name.endswith("__"):
        # Python calls a special method of an instance, so it is used as far as its class is.
        if len(parts) < 2 or "<locals>" in parts:
            return "Python's own protocol calls"
        user = callers(path, ".".join(parts[:-1]))
        return f"Python's own protocol calls on {parts[-2]}, used at {user}" if user else None
    real = os.path.realpath(path)
    if name == "<lambda>":
        return _lambda_use(path, function, function_line)
    if _pytest_collects(real, function):
        return f"pytest, which collects {function} from {os.path.basename(real)}"
    files = _python_files(project_root(path))
    if files is None:
        return f"(over {_MAX_FILES} files in the project: not searched)"
    # Another file uses this function only through an import of it from this module (or of
    # its class, for a method): a same-named function of another file is not this one.
    owner = parts[0] if len(parts) > 1 and "<locals>" not in parts else name
    stem = os.path.splitext(os.path.basename(real))[0]
    reexported = _reexported_by(real, owner)
    for file in dict.fromkeys([real, *files]):
        text = _code_text(file, real, name)
        if text is None:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        if file == real:
            uses = _loads(tree, name)
        elif not real.endswith(".py"):
            continue  # nothing imports a notebook's functions
        else:
            uses = _imported_uses(tree, stem, owner, name, reexported)
        for line, enclosing in uses:
            where = f"{os.path.relpath(file, project_root(path))}:{line}"
            if enclosing is None or enclosing == function and file == real:
                if enclosing is None:
                    return where  # module code, or a notebook cell: it runs
                continue  # a recursive call is no use from outside
            if os.path.isfile(os.path.join(os.path.dirname(file), "__init__.py")):
                return where  # a package's functions are called by its importers, anywhere
            seen = _seen if _seen is not None else {(real, function)}
            if (file, enclosing) in seen or len(seen) > _DEPTH:
                continue
            outer = callers(file, enclosing, None, seen | {(file, enclosing)})
            if outer is not None:
                return f"{where} (in {enclosing}, used at {outer.split(' (in ')[0]})"
    return None


_DEPTH = 6  # functions followed from a use to the code that runs it


def _signature_scope(path: str, line: int, end_line: int, name: str):
    """Where every use of `name` at these lines is part of a `def` statement rather than its
    body (a parameter's annotation or default, the return annotation, a decorator), the
    function that runs that `def`, as (qualified name, line), with (None, None) for module
    code (class bodies included); otherwise None."""
    import ast

    tail = name.rsplit(".", 1)[-1]
    if not tail:
        return None
    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except (OSError, SyntaxError, ValueError):
        return None
    enclosing = _enclosing(tree)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    uses = [n for n in ast.walk(tree)
            if line <= getattr(n, "lineno", 0) <= end_line
            and (isinstance(n, ast.Attribute) and n.attr == tail or isinstance(n, ast.Name) and n.id == tail)]
    scopes = set()
    for use in uses:
        child, node = use, parents.get(use)
        while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            child, node = node, parents.get(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or child in node.body:
            return None
        outer = enclosing.get(node)
        defined_at = None
        if outer is not None:
            defined_at = next((p.lineno for p in _ancestors(node, parents)
                               if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
        scopes.add((outer, defined_at))
    return scopes.pop() if len(scopes) == 1 else None


def _enclosing(tree) -> dict:
    """Each node's enclosing function, as a qualified name (`f`, `C.m`, `f.<locals>.g`), or
    None at module level (class bodies run at import: module level)."""
    import ast

    out: dict = {}

    def visit(node, qual: Optional[str], prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            out[child] = qual
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                visit(child, name, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, qual, f"{prefix}{child.name}.")
            else:
                visit(child, qual, prefix)
    visit(tree, None, "")
    return out


def _loads(tree, name: str) -> list:
    """(line, enclosing function) of each read of `name`, as a name or an attribute."""
    import ast

    enclosing = _enclosing(tree)
    return sorted(((node.lineno, enclosing.get(node)) for node in ast.walk(tree)
                   if (isinstance(node, ast.Name) and node.id == name
                       or isinstance(node, ast.Attribute) and node.attr == name)
                   and isinstance(getattr(node, "ctx", None), ast.Load)),
                  key=lambda u: (u[1] is not None, u[0]))


def _reexported_by(path: str, owner: str) -> frozenset:
    """The packages above `path` whose `__init__.py` names `owner` (`from .mbpo import Agent`):
    `from pkg.agents import Agent` imports this module's `Agent` through them."""
    out = set()
    folder = os.path.dirname(path)
    for _ in range(8):
        init = os.path.join(folder, "__init__.py")
        if not os.path.isfile(init):
            break
        try:
            text = open(init, encoding="utf-8", errors="replace").read()
        except OSError:
            break
        if re.search(rf"\b{re.escape(owner)}\b", re.sub(r"#[^\n]*", "", text)):
            out.add(os.path.basename(folder))
        folder = os.path.dirname(folder)
    return frozenset(out)


def _imported_uses(tree, stem: str, owner: str, name: str, reexported: frozenset = frozenset()) -> list:
    """(line, enclosing function) where a file that imports `owner` from the module `stem`
    reads `name` (the owner itself, or a method of it): `from pkg.stem import owner` (or `*`), then
    `name`; `import pkg.stem` or `from pkg import stem` (aliases too), then `<module>.owner`. A
    package in `reexported` (its `__init__` imports `owner`) stands for the module `stem`."""
    import ast

    sources = {stem} | set(reexported)
    bound, modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = (node.module or "").split(".")
            for alias in node.names:
                if source[-1] in sources and alias.name in (owner, "*"):
                    bound.add(alias.asname or owner)
                elif alias.name in sources:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[-1] in sources:
                    modules.add(alias.asname or alias.name)
    if not bound and not modules:
        return []

    def dotted(node) -> str:
        return f"{dotted(node.value)}.{node.attr}" if isinstance(node, ast.Attribute) else \
            node.id if isinstance(node, ast.Name) else ""

    owner_read = any(
        isinstance(n, ast.Name) and n.id in bound and isinstance(n.ctx, ast.Load)
        or isinstance(n, ast.Attribute) and n.attr == owner and dotted(n.value) in modules
        for n in ast.walk(tree))
    if not owner_read:
        return []
    enclosing = _enclosing(tree)
    uses = []
    for node in ast.walk(tree):
        if owner == name:
            used = isinstance(node, ast.Name) and node.id in bound or \
                isinstance(node, ast.Attribute) and node.attr == name and dotted(node.value) in modules
        else:  # a method: read on anything, once its class is imported and read
            used = isinstance(node, ast.Attribute) and node.attr == name
        if used and isinstance(getattr(node, "ctx", None), ast.Load):
            uses.append((node.lineno, enclosing.get(node)))
    return sorted(uses, key=lambda u: (u[1] is not None, u[0]))


def _pytest_collects(path: str, function: str) -> bool:
    """pytest's default collection: `test_*` functions (module level, or methods of a `Test*`
    class) in `test_*.py` / `*_test.py` files."""
    base = os.path.basename(path)
    if not (base.startswith("test_") or base.endswith("_test.py")) or not base.endswith(".py"):
        return False
    parts = function.split(".")
    return parts[-1].startswith("test") and "<locals>" not in parts and (
        len(parts) == 1 or len(parts) == 2 and parts[0].startswith("Test"))


def _lambda_use(path: str, function: str, line: Optional[int]) -> Optional[str]:
    """A use of the lambda at `line`: the lambda runs only if the code that makes it runs and
    then calls or passes it on. Passed on where it is made (an argument, a value returned or
    stored in a container) or bound to a name read later in the same function, it is used as
    far as the enclosing function is (module code: it ran, or the line would have)."""
    import ast

    text = "".join(linecache.getlines(os.path.realpath(path)))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    parents = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    lam = next((n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == line), None)
    if lam is None:
        return None
    parent = parents.get(lam)
    scope = next((a for a in _ancestors(lam, parents)
                  if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))), None)
    if isinstance(parent, ast.Assign) and parent.value is lam:
        names = {t.id for t in parent.targets if isinstance(t, ast.Name)}
        read = next((n for n in ast.walk(scope or tree) if isinstance(n, ast.Name)
                     and n.id in names and isinstance(n.ctx, ast.Load)
                     and n.lineno > (lam.end_lineno or lam.lineno)), None)
        if read is None:
            return None
        where = f"{names.pop()} read at line {read.lineno}"
    elif isinstance(parent, (ast.Call, ast.keyword, ast.Return, ast.Dict, ast.List, ast.Tuple)):
        where = f"passed on at line {lam.lineno}"
    else:
        return None
    outer = function.rsplit(".<locals>.<lambda>", 1)[0] if "." in function else ""
    if not outer or outer == function:
        return None  # module code that never ran
    if outer.endswith("<lambda>"):
        return None  # a lambda in a lambda: not followed
    caller = callers(path, outer, scope.lineno if scope is not None else None)
    return f"{caller} (calls {outer}, where the lambda is {where})" if caller else None


# What a guard catches when the name is missing.
_GUARD_CATCHES = {"AttributeError", "ImportError", "ModuleNotFoundError", "Exception",
                  "BaseException"}


def _never_evaluated(path: str, line: int, end_line: int, tail: str) -> Optional[str]:
    """Why the program never fails on `tail` at these lines, or None when it may.

    An annotation Python does not evaluate (every one under `from __future__ import
    annotations`, a local variable's anywhere), and a use guarded by a `try` that catches the
    missing name, by the `except` of such a `try` (a fallback), or by `if hasattr(...)`."""
    import ast

    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except (OSError, SyntaxError, ValueError):
        return None
    lazy = any(isinstance(n, ast.ImportFrom) and n.module == "__future__"
               and any(a.name == "annotations" for a in n.names) for n in tree.body)
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    uses = [n for n in ast.walk(tree)
            if line <= getattr(n, "lineno", 0) <= end_line
            and (isinstance(n, ast.Attribute) and n.attr == tail
                 or isinstance(n, ast.Name) and n.id == tail
                 or isinstance(n, ast.alias) and n.name.rsplit(".", 1)[-1] == tail)]
    if not uses:
        return None
    reasons = [_unevaluated_annotation(n, parents, lazy) or _guard(n, parents) for n in uses]
    return reasons[0] if all(reasons) else None


def _unevaluated_annotation(node, parents, lazy: bool) -> Optional[str]:
    import ast

    child, node = node, parents.get(node)
    while node is not None and not isinstance(node, ast.stmt):
        if isinstance(node, ast.arg) and child is node.annotation and lazy:
            return f"line {child.lineno}: an annotation, never evaluated under "                    f"`from __future__ import annotations`"
        child, node = node, parents.get(node)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and child is node.returns \
            and lazy:
        return f"line {child.lineno}: a return annotation, never evaluated under "                f"`from __future__ import annotations`"
    if isinstance(node, ast.AnnAssign) and child is node.annotation:
        local = any(isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                    for p in _ancestors(node, parents))
        if lazy or local:
            return f"line {child.lineno}: a variable annotation Python never evaluates"
    return None


def _guard(node, parents) -> Optional[str]:
    import ast

    child = node
    for parent in _ancestors(node, parents):
        if isinstance(parent, ast.Try):
            caught = {n.id if isinstance(n, ast.Name) else getattr(n, "attr", "")
                      for h in parent.handlers for n in ast.walk(h.type)
                      if isinstance(n, (ast.Name, ast.Attribute))} if all(
                h.type is not None for h in parent.handlers) else {"BaseException"}
            if child in parent.body and caught & _GUARD_CATCHES:
                return f"line {node.lineno} is in a `try` that catches {', '.join(sorted(caught))}"
            if child in parent.handlers:
                return f"line {node.lineno} is the `except` fallback of a `try` at line " \
                       f"{parent.lineno}: it runs only when the new API is missing"
        if isinstance(parent, ast.If) and child in parent.body + parent.orelse and any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                and n.func.id == "hasattr" for n in ast.walk(parent.test)):
            return f"line {node.lineno} is guarded by the `hasattr` test at line {parent.lineno}"
        child = parent
    return None


def _ancestors(node, parents):
    node = parents.get(node)
    while node is not None:
        yield node
        node = parents.get(node)


def _code_only(text: str) -> str:
    """The line without its comment (a comment may name the removed API)."""
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    comments = [t for t in tokens if t.type == tokenize.COMMENT]
    return text[:comments[0].start[1]] + "\n" if comments else text


def _imported(source: str) -> set[str]:
    """The dotted modules (and module.name) an import statement names."""
    import ast

    try:
        tree = ast.parse(source.strip())
    except SyntaxError:
        return set()
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out |= {f"{node.module}.{alias.name}" for alias in node.names}
    return out


def confirm(job: Job) -> Verdict:
    watch = job.state.get("import_watch")
    line = job.f["line"]
    ran = _ran_anywhere(watch, line, max(job.f.get("end_line") or line, line))
    return removed(job.path, job.f, None, ran)


def _ran_anywhere(watch, first: int, last: int) -> Optional[int]:
    """How often the lines ran in any code of the file (None: no watch)."""
    if watch is None:
        return None
    return max((n for (_, line), n in watch.counts.items() if first <= line <= last), default=0)


@dataclasses.dataclass
class RemovedEvidence(Evidence):
    kind: ClassVar[str] = "api"
    name: str = ""
    version: str = ""
    present: bool = False
    warning: str = ""

    def text(self) -> str:
        return self.note or (f"{self.version} {'has' if self.present else 'lacks'} {self.name}"
                             + (f"; {self.warning}" if self.warning else ""))


def confirm_deprecated(job: Job) -> Verdict:
    """JAX906: the installed jax warned about the flagged line while the program ran."""
    real = os.path.realpath(job.path)
    here = [w for w in job.state.get("import_warnings") or []
            if w[0] in ("DeprecationWarning", "FutureWarning", "PendingDeprecationWarning")
            and os.path.realpath(w[1]) == real and job.line <= w[2] <= job.end_line]
    version = f"jax {jax.__version__}"
    if here:
        return verdict(CONFIRMED, f"{here[0][0]} at line {job.line}",
                       RemovedEvidence(name=job.confirm.get("removed") or "", version=version,
                                       present=True, warning=f"{here[0][0]}: {here[0][3][:200]}"))
    ran = job.state["import_watch"].ran(job.line, job.end_line, job.key)
    if not ran:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran at import",
                       "a deprecation warning shows only when the line runs")
    return verdict(NOT_REPRODUCED, f"{version} gave no deprecation warning at line {job.line}",
                   RemovedEvidence(name=job.confirm.get("removed") or "", version=version,
                                   present=True, note=f"line {job.line} ran {ran} time(s) under "
                                                      f"{version} without a DeprecationWarning; "
                                                      f"it breaks at the target version only"))
