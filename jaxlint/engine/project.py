"""What the project around a file says about the whole program.

Some facts hold for every module of a program but are written in one place: x64
is turned on in a `conftest.py`, a package `__init__.py`, the launcher script,
or by `JAX_ENABLE_X64=1` in a README, a shell script or the environment block of
a config file. A rule reading one file cannot see them, so this module finds the
project's root and reads its text files once (a plain text search, cached per
root), and rules ask `project_facts(model.path, settings)`.

The root is the nearest directory above the file with a project marker
(`pyproject.toml`, `setup.py`, `setup.cfg`, `.git`). Without one (a checkout
without its metadata), it is the highest directory, within the directory jaxlint
was run on, whose parent still holds files of its own: a folder that holds only
folders is a collection of projects, not a project.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import Any, Optional

from jaxlint.source import read_bytes

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")

# Text files that can turn x64 on for the program: code, notebooks, docs, scripts, configs.
_TEXT_SUFFIXES = frozenset({
    ".py", ".ipynb", ".md", ".rst", ".txt", ".sh", ".bash", ".cfg", ".toml", ".ini",
    ".yaml", ".yml", ".env", ".envrc",
})
# Of those, the prose: it describes the code of its own folder.
_DOC_SUFFIXES = (".md", ".rst", ".txt")
_TEXT_NAMES = frozenset({"Makefile", "Dockerfile", ".env", ".envrc"})
_SKIP_DIRS = frozenset({"node_modules", "site-packages", "__pycache__", "venv", "env", "build", "dist"})
_MAX_FILES = 4000
_MAX_BYTES = 1 << 20

# `jax.config.update("jax_enable_x64", True)`, `os.environ["JAX_ENABLE_X64"] = "True"`,
# `config.jax_enable_x64 = True`, `%env JAX_ENABLE_X64=1`, `--jax_enable_x64`.
_X64_ON = re.compile(
    rb"""jax_enable_x64(?:\\?["'\]\s,=:)]|\\n){0,8}(?:true|1|yes|on)\b|--jax_enable_x64(?=[\s"']|$)""",
    re.IGNORECASE | re.MULTILINE)
# In docs, scripts and configs only the environment variable and the flag count:
# a page may quote `config.update(...)` without the program running it.
_X64_ENV_ON = re.compile(
    rb"""JAX_ENABLE_X64(?:["'\]\s,=:]){1,6}(?i:true|1|yes|on)\b|--jax_enable_x64(?=[\s"']|$)""", re.MULTILINE)


@dataclass(frozen=True)
class ProjectFacts:
    root: Optional[str]
    # A file that turns x64 on for every program of the project: a conftest.py, a
    # script or config setting JAX_ENABLE_X64.
    x64_everywhere: Optional[str] = None
    # Docs telling to set JAX_ENABLE_X64 (a README's `JAX_ENABLE_X64=1 python train.py`):
    # each speaks for the code in its own folder and below, not for a sibling folder's.
    x64_docs: tuple[str, ...] = ()
    # Modules (and notebooks) that turn x64 on when they run.
    x64_files: tuple[str, ...] = ()
    # Each module's name (`pkg/sub/mod.py` -> mod, `pkg/__init__.py` -> pkg) and the
    # words of its import lines: an approximate import graph of the project.
    module_names: tuple[tuple[str, str], ...] = ()
    imports: tuple[tuple[str, frozenset[str]], ...] = ()

    def x64_enabled_for(self, path: str, source: str = "") -> Optional[str]:
        """The file that turns x64 on for the program `path` runs in, or None.

        A notebook counts for itself (`%env JAX_ENABLE_X64=1` in a cell); a module
        for the modules it imports, directly or not, and those that import it (the
        launcher sets x64, then imports the model); a package's `__init__.py` for
        the package's modules. An unrelated script does not.
        """
        if self.x64_everywhere:
            return self.x64_everywhere
        if self.root is None:
            return None
        path = os.path.abspath(path)
        for doc in self.x64_docs:
            if _within(path, os.path.dirname(doc)):
                return doc
        if not self.x64_files:
            return None
        if path in self.x64_files:
            return path
        names = dict(self.module_names)
        imports = dict(self.imports)
        if source:
            imports[path] = _import_words(source.encode("utf-8", "replace"))
        mine = self._reachable(path, names, imports)
        for other in self.x64_files:
            if other.endswith(".ipynb"):
                continue  # another notebook is another program
            if os.path.basename(other) == "__init__.py" and _within(path, os.path.dirname(other)):
                return other
            if other in mine or path in self._reachable(other, names, imports):
                return other
        return None

    @staticmethod
    def _reachable(start: str, names: dict[str, str], imports: dict[str, frozenset[str]]) -> set[str]:
        """The project modules `start` imports, directly or through others."""
        by_name: dict[str, list[str]] = {}
        for path, name in names.items():
            by_name.setdefault(name, []).append(path)
        seen = {start}
        todo = [start]
        while todo:
            importer = todo.pop()
            package = names.get(importer, "").rpartition(".")[0]
            for imported in imports.get(importer, ()):
                for path in _resolve(imported, package, by_name):
                    if path not in seen:
                        seen.add(path)
                        todo.append(path)
        return seen


def _resolve(imported: str, package: str, by_name: dict[str, list[str]]) -> list[str]:
    """The project modules an import name can mean: the dotted path from the root, the
    same path under `src/`, or (as a script's `import helper` finds its neighbour, and
    `from .helper import x` does) a module of the importer's own package."""
    if imported.startswith("."):
        dots = len(imported) - len(imported.lstrip("."))
        base = package.split(".") if package else []
        base = base[:len(base) - (dots - 1)] if dots > 1 else base
        rest = imported.lstrip(".")
        return by_name.get(".".join(base + ([rest] if rest else [])), [])
    found = by_name.get(imported, []) + by_name.get("src." + imported, [])
    if package:
        found += by_name.get(package + "." + imported, [])
    return found


NO_PROJECT = ProjectFacts(None)

# A file whose findings can depend on the project around it: it names a 64-bit dtype
# (X64_DTYPES: float64, int64, complex128, float_, int_, uint...), so JAX702 reads
# whether x64 is on elsewhere. The cache keys such a file's result on that fact too.
_NAMES_X64_DTYPE = re.compile(rb"64|128|float_|int_|complex_|\buint\b")


def project_salt(path: str, data: bytes, settings: Optional[Any] = None) -> str:
    """What, outside the file's own bytes, its findings depend on ('' for most files)."""
    if not _NAMES_X64_DTYPE.search(data):
        return ""
    return "x64:" + str(project_facts(path, settings).x64_enabled_for(path) is not None)


def project_facts(path: str, settings: Optional[Any] = None) -> ProjectFacts:
    """The facts of the project `path` belongs to (NO_PROJECT for `<string>` / stdin)."""
    if not path or path.startswith("<") or path == "-":
        return NO_PROJECT
    if not os.path.isfile(path):
        return NO_PROJECT  # text with a made-up name: no project around it
    start = os.path.dirname(os.path.abspath(path))
    run_root = getattr(settings, "root", None)
    root = project_root(start, os.path.abspath(run_root) if run_root else None)
    return _facts(root)


def marked_root(start: str) -> Optional[str]:
    """The nearest directory at or above `start` holding a project marker, or None."""
    d = start
    while True:
        if any(os.path.exists(os.path.join(d, m)) for m in PROJECT_MARKERS):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


@functools.lru_cache(maxsize=64)
def project_root(start: str, run_root: Optional[str] = None) -> str:
    marked = marked_root(start)
    if marked is not None:
        return marked
    if run_root is None or not _within(start, run_root):
        return start
    d = start
    while d != run_root:
        parent = os.path.dirname(d)
        if not _holds_files(parent):
            break
        d = parent
    return d


@functools.lru_cache(maxsize=64)
def _facts(root: str) -> ProjectFacts:
    x64_files: list[str] = []
    x64_docs: list[str] = []
    names: list[tuple[str, str]] = []
    imports: list[tuple[str, frozenset[str]]] = []
    for path in _text_files(root):
        data = read_bytes(path, _MAX_BYTES)  # regular files only: a FIFO would block
        if not isinstance(data, bytes):
            continue
        name = os.path.basename(path)
        if name.endswith(".py"):
            names.append((path, _module_name(path, root)))
            imports.append((path, _import_words(data)))
        if b"x64" not in data and b"X64" not in data:
            continue
        if name.endswith((".py", ".ipynb")):
            if not _X64_ON.search(data):
                continue
            if name == "conftest.py":
                return ProjectFacts(root, x64_everywhere=path)
            x64_files.append(path)
        elif _X64_ENV_ON.search(data):
            if name.endswith(_DOC_SUFFIXES):
                x64_docs.append(path)
                continue
            return ProjectFacts(root, x64_everywhere=path)
    if not x64_files:
        return ProjectFacts(root, x64_docs=tuple(x64_docs))
    return ProjectFacts(root, x64_files=tuple(x64_files), x64_docs=tuple(x64_docs), module_names=tuple(names),
                        imports=tuple(imports))


def _module_name(path: str, root: str) -> str:
    """The module's dotted path from the project root (`pkg/sub/mod.py` -> pkg.sub.mod,
    `pkg/__init__.py` -> pkg)."""
    rel = os.path.relpath(path, root)
    parts = [p for p in os.path.splitext(rel)[0].split(os.sep) if p not in ("", ".", "..")]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(_enclosing_packages(root) + parts)


@functools.lru_cache(maxsize=64)
def _enclosing_packages(root: str) -> list[str]:
    """The packages a root directory sits in (`src/pkg` holding an `__init__.py` -> [pkg]):
    a root found inside a package (a `src/` layout with no project file) names its
    modules the way their imports do (`from pkg.sub import mod`)."""
    names: list[str] = []
    d = root
    while os.path.isfile(os.path.join(d, "__init__.py")):
        names.insert(0, os.path.basename(d))
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return names


_FROM_IMPORT = re.compile(rb"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?([\w \t,]*)", re.MULTILINE)
_PLAIN_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([\w. \t,]+)", re.MULTILINE)


def _import_words(data: bytes) -> frozenset[str]:
    """The module names a file imports: `import a.b` -> a.b; `from a import b, c` -> a,
    a.b, a.c (b may be a module); relative names keep their leading dots."""
    names = set()
    for m in _PLAIN_IMPORT.finditer(data):
        for item in m.group(1).split(b","):
            words = item.split()
            if words:
                names.add(words[0].decode("ascii", "replace"))
    for m in _FROM_IMPORT.finditer(data):
        module = m.group(1).decode("ascii", "replace")
        names.add(module)
        for item in m.group(2).split(b","):
            words = item.split()
            if words:
                sep = "" if module.endswith(".") else "."
                names.add(module + sep + words[0].decode("ascii", "replace"))
    return frozenset(names)


def _text_files(root: str):
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if name in _TEXT_NAMES or os.path.splitext(name)[1] in _TEXT_SUFFIXES:
                count += 1
                if count > _MAX_FILES:
                    return
                yield os.path.join(dirpath, name)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _holds_files(d: str) -> bool:
    try:
        with os.scandir(d) as it:
            return any(e.is_file() for e in it)
    except OSError:
        return False
