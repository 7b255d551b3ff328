"""Functions that nothing runs: defined in a script or notebook, and named nowhere else.

A key reused inside such a function repeats numbers nobody draws (a `create_random`
factory whose only call is commented out), so the key rules do not report it. A
function counts as run when anything could call it:

- its name appears in the file outside its own `def` (a call, a reference, a string
  such as `__all__` or `getattr(mod, "name")`; comments do not count);
- it is a method other than a `classmethod` / `staticmethod` (a framework or a base
  class may call `setup`, `__call__`, `forward`), a dunder, a test or a fixture, or
  it carries a decorator that may register it (`@app.command`, `@pytest.fixture`);
- its file may be imported: a module inside a package (its directory holds an
  `__init__.py`: library code is called from outside the project), a module whose
  name another file of the project mentions (`import nb1`, `%run nb1.py`), or a file
  that hands its names to a command line or reads them by name (`fire.Fire()`,
  `globals()`, `getattr`, `eval`).

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
from jaxlint.engine.project import _MAX_FILES, PROJECT_MARKERS, _text_files
from jaxlint.source import read_bytes

# Decorators that only wrap the function; any other may register it to be called by name.
_WRAPPING_DECORATORS = frozenset({"classmethod", "staticmethod", "builtins.classmethod", "builtins.staticmethod"})
_WRAPPING_PREFIXES = ("jax.", "functools.", "equinox.", "flax.", "chex.")
# Names a file uses to reach its own functions by name.
_BY_NAME = re.compile(r"\b(Fire|globals|getattr|eval|exec|vars|locals|__dict__)\b")
_CODE_SUFFIXES = (".py", ".ipynb")


def never_called(model: FileModel, function: Optional[FunctionInfo]) -> bool:
    """`function`, or a function it is nested in, is defined and never run (see the module)."""
    chain = []
    while function is not None:
        chain.append(function)
        function = function.enclosing
    return any(_unnamed(model, f) for f in chain) and _program_file(model)


def _unnamed(model: FileModel, function: FunctionInfo) -> bool:
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


def _program_file(model: FileModel) -> bool:
    """A notebook, or a script that nothing else can import or call by name."""
    path = model.path
    if path.endswith(".ipynb"):
        return not _BY_NAME.search(model.module.code)
    if not path.endswith(".py") or not os.path.isfile(path) or _BY_NAME.search(model.module.code):
        return False
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.exists(os.path.join(directory, "__init__.py")):
        return False
    stem = os.path.splitext(os.path.basename(path))[0]
    counts = _files_mentioning(_root(directory))
    if counts is None:
        return False  # too many files to read: an importer may be among those left out
    mentions = counts.get(stem.encode(), 0)
    data = read_bytes(path, 1 << 20)
    own = isinstance(data, bytes) and re.search(rb"\b" + re.escape(stem.encode()) + rb"\b", data) is not None
    return mentions - own == 0


@functools.lru_cache(maxsize=16)
def _root(directory: str) -> str:
    """The nearest directory above with a project marker; without one, the highest
    directory that still holds code files of its own."""
    d = directory
    while True:
        if any(os.path.exists(os.path.join(d, m)) for m in PROJECT_MARKERS):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
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
    """Per word, how many code files of the project hold it; None past the files
    `_text_files` reads."""
    counts: Counter = Counter()
    for count, path in enumerate(_text_files(root), 1):
        if count >= _MAX_FILES:
            return None
        if path.endswith(_CODE_SUFFIXES):
            data = read_bytes(path, 1 << 20)
            if isinstance(data, bytes):
                counts.update(set(re.findall(rb"\w+", data)))
    return counts
