"""Functions that nothing runs: named nowhere but in their own `def`, in the whole project.

A key reused inside such a function repeats numbers nobody draws (a `create_random`
factory whose only call is commented out), so the key rules do not report it. A
function counts as run when anything could call it:

- its name appears in its file outside its own `def` (a call, a reference, a string
  such as `__all__` or `getattr(mod, "name")`; comments do not count);
- its name appears in any other text file of the project, other than in a `def` (a
  copy of the function) or a commented-out line of code: code, tests, notebooks, docs, scripts, configs (a library's
  public function is called, tested, exported or documented there; a script's
  function is reached through `import`);
- it is a method other than a `classmethod` / `staticmethod` (a framework or a base
  class may call `setup`, `__call__`, `forward`), a dunder, a test, `main`, or it
  carries a decorator that may register it (`@app.command`, `@pytest.fixture`);
- its file reaches its names by name (`fire.Fire()`, `globals()`, `getattr`, `eval`),
  or the project has more files than are read;
- its file is a module of definitions only (no module-level call of its own code,
  loop or `__main__` block): a library, whose functions whoever imports it may call.

A notebook is a program of its own: its functions are run from its cells or not at all.
"""

from __future__ import annotations

import functools
import os
import re
from collections import Counter
from typing import Optional

import libcst as cst

from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.model import FileModel
from jaxlint.engine.project import _MAX_FILES, _text_files, marked_root
from jaxlint.source import read_bytes

# Decorators that only wrap the function; any other may register it to be called by name.
_WRAPPING_DECORATORS = frozenset({"classmethod", "staticmethod", "builtins.classmethod", "builtins.staticmethod"})
_WRAPPING_PREFIXES = ("jax.", "functools.", "equinox.", "flax.", "chex.")
# Names a file uses to reach its own functions by name.
_BY_NAME = re.compile(r"\b(Fire|globals|getattr|eval|exec|vars|locals|__dict__)\b")
_CODE_SUFFIXES = (".py", ".ipynb")
# A `def` names the function it makes; a copy of the function in another file calls nothing.
_DEF = re.compile(rb"\bdef\s+\w+")
_COMMENT_LINE = re.compile(rb"^[ \t]*#.*$", re.MULTILINE)
_NOTEBOOK_COMMENT_LINE = re.compile(rb'^[ \t]*"[ \t]*#.*$', re.MULTILINE)  # a line of a cell's JSON


def never_called(model: FileModel, function: Optional[FunctionInfo]) -> bool:
    """`function`, or a function it is nested in, is defined and never run (see the module)."""
    chain = []
    while function is not None:
        chain.append(function)
        function = function.enclosing
    unnamed = [f for f in chain if _unnamed(model, f)]
    if not unnamed or _BY_NAME.search(model.module.code):
        return False
    if model.path.endswith(".ipynb"):
        return True
    if not model.path.endswith(".py") or not os.path.isfile(model.path) or not _runs_as_script(model):
        return False
    counts = _files_mentioning(_root(os.path.dirname(os.path.abspath(model.path))))
    if counts is None:
        return False  # too many files to read: a caller may be among those left out
    data = read_bytes(model.path, 1 << 20)
    if not isinstance(data, bytes):
        return False
    return any(counts.get(f.name.encode(), 0) - _mentions(f.name, data) == 0 for f in unnamed)


def _runs_as_script(model: FileModel) -> bool:
    """The module runs a program of its own (a module-level call, loop or `with`, or an
    `if __name__ == "__main__":` block): its functions are reached from that program or
    from the project. A module of only definitions is a library: whoever imports it
    (a user, a test, a snippet handed to the linter) may call any of its functions."""
    for stmt in model.module.body:
        if isinstance(stmt, (cst.For, cst.While, cst.With, cst.If)):
            return True
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                return True
            value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
            if isinstance(value, cst.Call) and _defined_here(model, value.func):
                return True  # `model = Rational.create_ones()`: the module runs its own code
    return False


def _defined_here(model: FileModel, func: cst.BaseExpression) -> bool:
    while isinstance(func, cst.Attribute):
        func = func.value
    if not isinstance(func, cst.Name):
        return False
    return any(isinstance(b.node, (cst.FunctionDef, cst.ClassDef))
               for b in model.scope_of(func).lookup(func.value) or [])


def _mentions(word: str, data: bytes) -> int:
    return 1 if re.search(rb"\b" + re.escape(word.encode()) + rb"\b", _named(".py", data)) else 0


def _named(path: str, data: bytes) -> bytes:
    """The text of a file that can name a function to run: without `def` names, and
    without whole-line comments of code (a call commented out runs nothing)."""
    if path.endswith(".py"):
        data = _COMMENT_LINE.sub(b"", data)
    elif path.endswith(".ipynb"):
        data = _NOTEBOOK_COMMENT_LINE.sub(b"", data)
    return _DEF.sub(b"", data)


def _unnamed(model: FileModel, function: FunctionInfo) -> bool:
    """Nothing in its own file names `function` but its `def` (nor may call it unnamed)."""
    node = function.node
    if not isinstance(node, cst.FunctionDef):
        return False
    name = function.name
    if name.startswith("__") or name.startswith(("test", "setUp", "tearDown")) or name == "main":
        return False
    decorators = [model.qualname(d.decorator) or "?" for d in node.decorators]
    if function.is_method and not any(d in _WRAPPING_DECORATORS for d in decorators):
        return False
    if any(d not in _WRAPPING_DECORATORS and not d.startswith(_WRAPPING_PREFIXES) for d in decorators):
        return False
    if any(mention is not node.name for mention in model.names_spelled(name)):
        return False
    word = re.compile(rf"\b{re.escape(name)}\b")
    return not any(word.search(s.value) for s in model.nodes(cst.SimpleString, cst.FormattedStringText))


@functools.lru_cache(maxsize=16)
def _root(directory: str) -> str:
    """The nearest directory above with a project marker; without one, the highest
    directory that still holds code files of its own."""
    marked = marked_root(directory)
    if marked is not None:
        return marked
    d = directory
    while True:
        parent = os.path.dirname(d)
        if parent == d or not _holds_code(parent):
            return d
        d = parent


def _holds_code(d: str) -> bool:
    try:
        with os.scandir(d) as it:
            return any(e.is_file() and e.name.endswith(_CODE_SUFFIXES) for e in it)
    except OSError:
        return False


@functools.lru_cache(maxsize=16)
def _files_mentioning(root: str) -> Optional[Counter]:
    """Per word, how many text files of the project (code, docs, scripts, configs) hold
    it; None past the files `_text_files` reads."""
    counts: Counter = Counter()
    for count, path in enumerate(_text_files(root), 1):
        if count >= _MAX_FILES:
            return None
        data = read_bytes(path, 1 << 20)
        if isinstance(data, bytes):
            counts.update(set(re.findall(rb"\w+", _named(path, data))))
    return counts
