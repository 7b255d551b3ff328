"""Finding the flagged function at run time, and watching which of its lines run (worker side).

Code objects are identified by (file, qualname, first line): compiling the source again gives
the same keys as the imported module, so a nested function or a lambda can be found in the
traceback without holding its function object.
"""

from __future__ import annotations

import inspect
import os
import sys
import types
from collections import Counter
from dataclasses import dataclass
from typing import Any, Optional


def code_key(code: types.CodeType) -> tuple[str, int]:
    return (getattr(code, "co_qualname", code.co_name), code.co_firstlineno)


def all_codes(code: types.CodeType):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from all_codes(c)


def _last_line(code: types.CodeType) -> int:
    lines = [ln for _, _, ln in code.co_lines() if ln is not None]
    return max(lines) if lines else code.co_firstlineno


def find_target_code(source_code: types.CodeType, qualname: Optional[str],
                     def_line: Optional[int], line: int) -> Optional[types.CodeType]:
    """The code object of the flagged function (decorators move co_firstlineno up)."""
    if not qualname:
        return None
    want = qualname.replace(".<locals>", ".<locals>")
    best = None
    for code in all_codes(source_code):
        name = getattr(code, "co_qualname", code.co_name)
        if name != want and code.co_name != want.rsplit(".", 1)[-1]:
            continue
        first = code.co_firstlineno
        if def_line is not None and first > def_line:
            continue
        if not first <= line <= _last_line(code):
            continue
        if best is None or first > best.co_firstlineno or name == want and \
                getattr(best, "co_qualname", best.co_name) != want:
            best = code
    return best


def contains(outer: types.CodeType, key: tuple[str, int]) -> bool:
    return any(code_key(c) == key for c in all_codes(outer))


@dataclass
class Entry:
    """How to call into the flagged code: the object found in the module, and how."""

    obj: Any  # a function, a jitted function, or a method's raw function
    owner: Optional[type]  # the class, for methods
    attr: Optional[str]
    direct: bool  # True: obj is the flagged function; False: it encloses it
    code: types.CodeType  # obj's own (unwrapped) code

    @property
    def jitted(self) -> bool:
        return hasattr(self.obj, "trace") and hasattr(self.obj, "lower")


def _unwrap_code(obj) -> Optional[types.CodeType]:
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    try:
        fn = inspect.unwrap(obj)
    except Exception:
        return None
    return getattr(fn, "__code__", None)


def _candidates(module):
    # A notebook's earlier definitions of a name that a later cell redefined.
    items = list(vars(module).items()) + list(vars(module).get("__jaxlint_defined__", ()))
    for name, value in items:
        if isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
            for attr, raw in list(vars(value).items()):
                yield raw, value, attr
        else:
            yield value, None, name


def find_entry(module, path: str, key: tuple[str, int]) -> Optional[Entry]:
    """A module-level object whose code is the target (jitted ones first), else one enclosing it."""
    real = os.path.realpath(path)
    direct, enclosing = [], []
    for obj, owner, attr in _candidates(module):
        code = _unwrap_code(obj)
        if code is None or os.path.realpath(code.co_filename) != real:
            continue
        if code_key(code) == key:
            direct.append(Entry(obj, owner, attr, True, code))
        elif contains(code, key):
            enclosing.append(Entry(obj, owner, attr, False, code))
    if direct:
        direct.sort(key=lambda e: not e.jitted)
        return direct[0]
    if enclosing:
        # The outermost: the one whose code is not inside another candidate.
        enclosing.sort(key=lambda e: (not e.jitted, e.code.co_firstlineno))
        return enclosing[0]
    return None


class LineWatch:
    """sys.settrace restricted to one file: counts the lines that ran, per line number."""

    def __init__(self, path: str, keys: Optional[set] = None):
        self.real = os.path.realpath(path)
        self.keys = keys
        self.counts: Counter = Counter()
        self._seen: dict[types.CodeType, bool] = {}
        self._old = None
        self.raised: list[BaseException] = []
        self._raised_ids: set[int] = set()
        # Probes (jaxlint.confirm.verdicts.probe) by first line, and the open ones per frame.
        self.probes: dict[int, list] = {}
        self._open: dict[int, list] = {}

    def add_probe(self, probe) -> None:
        self.probes.setdefault(probe.first, []).append(probe)

    def _probe(self, frame, event, arg) -> None:
        opened = self._open.get(id(frame))
        if opened:
            keep = []
            for probe, state in opened:
                if event == "exception":
                    state["raised"] = True
                    keep.append((probe, state))
                elif event == "return" or not probe.first <= frame.f_lineno <= probe.last:
                    probe.close(frame, state, arg if event == "return" else None,
                                state.get("raised", False))
                else:
                    keep.append((probe, state))
            if keep:
                self._open[id(frame)] = keep
            else:
                del self._open[id(frame)]
        if event == "line":
            for probe in self.probes.get(frame.f_lineno, ()):
                if all(p is not probe for p, _ in self._open.get(id(frame), ())):
                    self._open.setdefault(id(frame), []).append((probe, probe.open(frame)))

    def _wanted(self, code) -> bool:
        hit = self._seen.get(code)
        if hit is None:
            hit = code.co_filename == self.real or os.path.realpath(code.co_filename) == self.real
            if hit and self.keys is not None:
                hit = code_key(code) in self.keys
            self._seen[code] = hit
        return hit

    def _global(self, frame, event, arg):
        if self._wanted(frame.f_code):
            return self._local
        return None

    def _local(self, frame, event, arg):
        if self.probes:
            self._probe(frame, event, arg)
        if event == "line":
            self.counts[(frame.f_code, frame.f_lineno)] += 1
        elif event == "exception" and id(arg[1]) not in self._raised_ids and len(self.raised) < 100:
            # Its first sighting in this file; kept even when the code catches it.
            self._raised_ids.add(id(arg[1]))
            self.raised.append(arg[1])
        return self._local

    def ran(self, first: int, last: int, key: Optional[tuple] = None) -> int:
        """How often the lines ran in the function `key` (None: at module level)."""
        best = 0
        for (code, line), n in self.counts.items():
            if first <= line <= last and (code_key(code) == key if key is not None
                                          else code.co_name == "<module>"):
                best = max(best, n)
        return best

    def __enter__(self):
        self._old = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(self._old)
        return False


def frame_lines(exc: BaseException, path: str, key: tuple[str, int]) -> list[int]:
    """Lines of the target function's frames in the exception's traceback chain."""
    real = os.path.realpath(path)
    out = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            if code_key(code) == key and os.path.realpath(code.co_filename) == real:
                out.append(tb.tb_lineno)
            tb = tb.tb_next
        exc = exc.__cause__ or exc.__context__
    return out


def _library_dirs() -> tuple[str, ...]:
    import sysconfig

    dirs = {os.path.realpath(sysconfig.get_paths()[k]) for k in ("stdlib", "platstdlib", "purelib",
                                                                  "platlib")}
    dirs.add(os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    return tuple(d + os.sep for d in dirs)


_LIBRARY = _library_dirs()


def is_user_file(filename: str) -> bool:
    """Not the standard library, not an installed package (jax), not jaxlint itself."""
    if filename.startswith("<"):
        return False
    return not os.path.realpath(filename).startswith(_LIBRARY)


@dataclass
class UserFrame:
    filename: str
    line: int
    code: types.CodeType
    # The last line of the expression that raised: a call written over several lines raises
    # at its first line, while the finding may point at an argument on a later one.
    end_line: int = 0

    def where(self) -> str:
        return f"{os.path.basename(self.filename)}:{self.line}"


def user_frames(exc: BaseException) -> list[UserFrame]:
    """The frames of user code in the exception's own traceback, outermost first."""
    out = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if is_user_file(code.co_filename):
            out.append(UserFrame(code.co_filename, tb.tb_lineno, code,
                                 _end_line(code, tb.tb_lasti, tb.tb_lineno)))
        tb = tb.tb_next
    return out


def _end_line(code: types.CodeType, lasti: int, line: int) -> int:
    """The last line of the instruction's source span (co_positions, Python 3.11+)."""
    try:
        positions = list(code.co_positions())[lasti // 2]
    except (AttributeError, IndexError, TypeError):
        return line
    start, end = positions[0], positions[1]
    return end if start == line and end is not None and end >= line else line


def innermost_user_frame(exc: BaseException) -> Optional[UserFrame]:
    frames = user_frames(exc)
    return frames[-1] if frames else None


def raised_at(exc: BaseException, path: str, first: int, last: int,
              key: Optional[tuple[str, int]] = None) -> bool:
    """The innermost user frame of the traceback is in `path` at lines first..last (and, when
    `key` is given, in that function): the error came from the flagged line, not from code
    it called or from elsewhere in the file."""
    frame = innermost_user_frame(exc)
    if frame is None or os.path.realpath(frame.filename) != os.path.realpath(path):
        return False
    if key is not None and code_key(frame.code) != key:
        return False
    # The expression that raised covers one of the flagged lines.
    return frame.line <= last and first <= max(frame.line, frame.end_line)


def excerpt(exc: BaseException, limit: int = 3) -> str:
    """The last user frames, `file:line: source`, innermost last."""
    import linecache

    parts = []
    for fr in user_frames(exc)[-limit:]:
        text = linecache.getline(fr.filename, fr.line).strip()
        parts.append(f"{fr.where()}: {text}" if text else fr.where())
    return " <- ".join(reversed(parts))


def code_span(code: types.CodeType) -> tuple[int, int]:
    return code.co_firstlineno, _last_line(code)
