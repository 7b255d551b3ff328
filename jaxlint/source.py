"""Reading a file into text, and parsing it safely.

Bad input never raises out of here: it becomes a `Diagnostic`.
"""

from __future__ import annotations

import abc
import ast
import codecs
import errno
import hashlib
import io
import os
import re
import stat
import sys
import tempfile
import threading
import tokenize
import warnings
from typing import TYPE_CHECKING, Optional, Union

from jaxlint.finding import Diagnostic

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

# Files larger than this are not parsed: libcst's cost grows faster than linear
# on pathological input, and no hand-written module is this big.
MAX_FILE_BYTES = 8 * 1024 * 1024


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
# Python's line breaks: \n, \r\n and \r. Not str.splitlines, which also breaks at form
# feed, \x1c-\x1e, \x85 and \u2028, where Python and libcst see one line.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """The lines of `text` as Python numbers them (line N is `source_lines(text)[N - 1]`)."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the break after the last line does not start another
    return lines


def content_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def not_regular(mode: int) -> Optional[str]:
    """What a file is when it is not a regular file ("a FIFO"), else None."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def read_bytes(path: str, limit: int) -> Union[bytes, Diagnostic]:
    """Up to `limit` + 1 bytes of a regular file; anything else is a diagnostic.

    A FIFO, a device or a socket named `x.py` would block the read (or never end):
    it is opened without blocking and refused after fstat, before any read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return Diagnostic(path, "symbolic link loop; skipped")
        if exc.errno == errno.EISDIR:
            return Diagnostic(path, "is a directory, not a file")
        return Diagnostic(path, f"cannot read file: {exc.strerror or exc}")
    try:
        what = not_regular(os.fstat(fd).st_mode)
        if what is not None:
            return Diagnostic(path, f"is {what}, not a regular file; skipped")
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        return Diagnostic(path, f"cannot read file: {exc.strerror or exc}")
    finally:
        os.close(fd)


def read_source(path: str, data: Optional[bytes] = None) -> Union[str, Diagnostic]:
    """The decoded text of a file (PEP 263 encodings), or why it cannot be read."""
    if data is None:
        data = read_bytes(path, MAX_FILE_BYTES)
        if isinstance(data, Diagnostic):
            return data
    if len(data) > MAX_FILE_BYTES:
        return Diagnostic(path, f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; skipped")
    if b"\0" in data:
        return Diagnostic(path, "binary file (contains NUL bytes); skipped")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        if not _ascii_compatible(encoding):
            # Python reads the cookie line as ASCII, so it refuses such a cookie
            # ("encoding problem: utf-16"); so does jaxlint.
            return Diagnostic(path, f"cannot decode file: encoding problem: {encoding} "
                                    f"(a coding cookie must name an ASCII-compatible encoding)")
        text = data.decode(encoding)
    except (SyntaxError, LookupError) as exc:
        return Diagnostic(path, f"cannot decode file: {exc}")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return Diagnostic(path, f"cannot decode file as {exc.encoding}: invalid byte "
                                f"0x{data[exc.start]:02x} at line {line}", line=line)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def _ascii_compatible(encoding: str) -> bool:
    sample = "# -*- coding: x -*-\nimport jax\n"
    try:
        return codecs.decode(sample.encode("ascii"), encoding) == sample
    except (LookupError, ValueError, UnicodeError):
        return False


def parse_source(text: str, path: str) -> Union["cst.Module", Diagnostic]:
    """Parse with libcst, after Python's own parser has vetted the input."""
    return parse_source_and_tree(text, path)[0]


def parse_source_and_tree(text: str, path: str, pieces: Optional["PieceCache"] = None,
                          vetted: Optional[tuple[str, ast.Module]] = None):
    """(libcst Module or Diagnostic, Python's `ast.Module` of the vetting, or None).

    Parse with libcst, after Python's own parser has vetted the input (`vet`; `vetted`:
    what it returned, when the caller has it already). With `pieces` (the language
    server's), each top-level statement is parsed on its own and kept there, so the
    next parse re-parses only the statements that changed.
    """
    if vetted is None:
        vetted = vet(text, path)
        if not isinstance(vetted, tuple):
            return vetted, None
    text, tree = vetted
    if pieces is not None:
        module = _parse_in_pieces(text, tree, 1, pieces.parse_all)
        if module is not None:
            return module, tree
    elif text.count("\n") > CHUNKED_PARSE_LINES:
        module = _parse_chunked(text, tree)
        if module is not None:
            return module, tree
    return _parse_libcst(text, path, None), tree


def vet(text: str, path: str) -> Union[tuple[str, ast.Module], "cst.Module", Diagnostic]:
    """(the text libcst is to parse, Python's `ast.Module` of it); else what the parse
    of `text` comes to without libcst's parse of it (a Diagnostic, mostly).

    Python's parser rejects in milliseconds the deeply nested input that makes
    libcst crash the interpreter or take seconds, and its syntax errors are the
    ones users know.
    """
    from jaxlint.data_statements import set_aside

    try:
        # Large literal tables never reach a parser: placeholders of the same lines stand in.
        aside = set_aside(text)
        if aside is not None:
            return aside
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return text, ast.parse(text, filename=path)
    except SyntaxError as exc:
        msg = exc.msg
        python_error = Diagnostic(path, f"SyntaxError: {msg}", line=exc.lineno, col=exc.offset, code="E999")
        if any(word in msg for word in _TOO_DEEP):
            return python_error
        # Newer syntax than this interpreter's (PEP 695 `type X = ...` on 3.11):
        # libcst's grammar decides. Its own syntax error is reported as Python's.
        return _parse_libcst(text, path, python_error)
    except (RecursionError, MemoryError):
        _raise_if_out_of_memory()
        return Diagnostic(path, "expression too deeply nested to analyse; skipped", code="E999")
    except ValueError as exc:
        return Diagnostic(path, f"cannot parse file: {exc}", code="E999")


#: Files longer than this are parsed in pieces of about this many lines, split at
#: top-level statements: libcst's parser needs memory several times the tree's
#: size while it works, so a 100k-line file parsed whole peaks near 1.5 GB.
CHUNKED_PARSE_LINES = 5000
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _parse_chunked(text: str, tree: ast.Module):
    """One libcst Module built from pieces parsed apart; None when it cannot be."""
    return _parse_in_pieces(text, tree, CHUNKED_PARSE_LINES, _parse_each)


def _parse_each(texts: list[str]) -> list:
    if _use_helper(len(texts)):
        return _parse_on_two_cores(texts)
    return _parse_list(texts)


def _use_helper(pieces: int) -> bool:
    # Not from a process with other threads (JAX's are native, so not where jax is loaded):
    # a forked child could inherit a held lock. Not beside another helper, nor in one.
    from jaxlint.processes import Helper

    return (pieces > 1 and hasattr(os, "fork") and threading.active_count() == 1
            and "jax" not in sys.modules and not Helper.busy() and _core_to_spare())


#: The share of the pieces a helper process parses: it also pickles its trees, which
#: costs it about half as much again, and unpickling them here about a sixth of a parse.
HELPER_SHARE = 0.4
_HELPER_TIMEOUT = 120.0


def _parse_on_two_cores(texts: list[str]) -> list:
    """The pieces' trees, the last ones parsed meanwhile by a forked helper: libcst's parse
    is half of a large file's analysis, and this one process could use only one core."""
    from jaxlint import processes

    split = len(texts) - max(1, round(len(texts) * HELPER_SHARE))
    helper = processes.Helper(_parse_list, texts[split:])
    try:
        mine = _parse_list(texts[:split])
    except BaseException:
        helper.cancel()
        raise
    theirs = helper.result(_HELPER_TIMEOUT)
    if theirs is None:  # the helper failed (out of memory, say): the same parse, here
        theirs = _parse_list(texts[split:])
    return mine + theirs


def _parse_list(texts: list[str]) -> list:
    return [parse_module(t) for t in texts]


def _core_to_spare() -> bool:
    """Whether a core is likely idle: the helper costs CPU time (pickling), which pays only
    there. Not while the runner's workers keep every core busy, nor on a loaded machine."""
    cores = _cores()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - no load average here
        return False
    return cores > 1 and load < cores - 0.5


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def parse_module(text: str) -> "cst.Module":
    """`libcst.parse_module`, for less (every libcst parse of jaxlint's goes here).

    Three of libcst's costs buy nothing for jaxlint. Each new node validates itself
    (`CSTNode.__post_init__`), which a tree its own parser made never needs (libcst's
    comment there says as much): while jaxlint parses, it does not. Node classes are
    ABCs, so `isinstance(node, cst.For)` goes through `ABCMeta.__instancecheck__` in
    Python, and a node's hash, its identity, is `id(self)` in Python; no node class is a
    registered virtual subclass, so the node classes get C's plain `isinstance` and
    identity hash instead (`_plain_node_classes`): the same answers, for less.
    """
    import libcst as cst
    from libcst._nodes.base import CSTNode

    _plain_node_classes(CSTNode)
    post_init = CSTNode.__dict__["__post_init__"]
    CSTNode.__post_init__ = _no_validation
    try:
        return cst.parse_module(text)
    finally:
        CSTNode.__post_init__ = post_init


def _no_validation(self) -> None:
    pass


_DONE: set = set()


class _PlainABCMeta(abc.ABCMeta):
    """ABCMeta, with type's own (C) instance and subclass checks: right for classes that
    have no virtual subclasses."""

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__


def _plain_node_classes(base: type) -> None:
    if base in _DONE:
        return
    _DONE.add(base)
    python_hash = base.__dict__.get("__hash__")
    todo, seen = [base], set()
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        todo.extend(cls.__subclasses__())
        if python_hash is not None and cls.__dict__.get("__hash__") is python_hash:
            cls.__hash__ = object.__hash__
        if type(cls) is abc.ABCMeta and not _registered(cls):
            cls.__class__ = _PlainABCMeta


def _registered(cls: type) -> bool:
    """Whether `cls` has virtual subclasses (`cls.register(...)`); True when unknown."""
    try:
        return bool(abc._get_dump(cls)[0])  # type: ignore[attr-defined]
    except (AttributeError, TypeError, IndexError):
        return True


def _parse_in_pieces(text: str, tree: ast.Module, min_lines: int, parse_all):
    """One libcst Module from pieces of at least `min_lines` lines, cut at top-level
    statements and parsed apart by `parse_all`; None when it cannot be."""
    import libcst as cst

    lines = _LINE.findall(text)
    cuts = [0]
    prev_end = 0
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())]) - 1
        # Not before the first statement: a piece of blank lines (the other half's, in
        # jaxlint.parallel) or comments only is no module of statements.
        if first >= prev_end and first - cuts[-1] >= min_lines and prev_end:
            cuts.append(first)
        prev_end = node.end_lineno or first + 1
    if len(cuts) == 1:
        return None
    cuts.append(len(lines))
    texts = ["".join(lines[a:b]) for a, b in zip(cuts, cuts[1:])]
    try:
        modules = parse_all(texts)
    except (cst.ParserSyntaxError, RecursionError, MemoryError):
        _raise_if_out_of_memory()
        return None
    if any(not m.body for m in modules) or any(m.default_newline != modules[0].default_newline
                                               for m in modules):
        return None
    # Positions are printed with the module's indent: every piece whose blocks use their
    # own default indent must have the same one. (A piece with no indented line has no
    # block to print, whatever libcst's default for it.)
    indents = {m.default_indent for m, t in zip(modules, texts) if _INDENTED.search(t)}
    if len(indents) > 1:
        return None
    first = modules[0]
    if indents and first.default_indent not in indents:
        first = first.with_changes(default_indent=indents.pop())
    body = list(first.body)
    pending = list(first.footer)
    for m in modules[1:]:
        stmts = list(m.body)
        # The previous piece's trailing comments and this piece's header lead its first statement.
        stmts[0] = stmts[0].with_changes(
            leading_lines=[*pending, *m.header, *stmts[0].leading_lines])
        body.extend(stmts)
        pending = list(m.footer)
    last = modules[-1]
    return first.with_changes(body=body, footer=last.footer,
                              has_trailing_newline=last.has_trailing_newline)


_INDENTED = re.compile(r"(?:\r\n|\r|\n)[ \t]")


class PieceCache:
    """Parsed top-level statements by their text, kept from one parse of a file to the
    next: an edit re-parses only the statements it touched (the language server's).

    Only the pieces of the latest parse are kept. A piece is never used twice in one
    module: two equal statements get two trees, since the model keys on node identity.
    """

    def __init__(self) -> None:
        self._pieces: dict[str, list] = {}
        self.parsed = 0  # pieces parsed by the latest parse_all (the rest were reused)

    def parse_all(self, texts: list[str]) -> list:
        old, new, out = self._pieces, {}, []
        self.parsed = 0
        for t in texts:
            kept = old.get(t)
            if kept:
                module = kept.pop()
            else:
                module = parse_module(t)
                self.parsed += 1
            new.setdefault(t, []).append(module)
            out.append(module)
        self._pieces = new
        return out


#: Python's messages for input too deep to hand to libcst's parser.
_TOO_DEEP = ("too many nested", "too complex", "too many statically nested")


def _parse_libcst(text: str, path: str, python_error: Optional[Diagnostic]):
    import libcst as cst

    try:
        return parse_module(text)
    except cst.ParserSyntaxError as exc:
        if python_error is not None:
            return python_error
        return Diagnostic(path, f"SyntaxError: {exc.message}", line=exc.raw_line,
                          col=exc.raw_column + 1, code="E999")
    except (RecursionError, MemoryError):
        _raise_if_out_of_memory()
        return Diagnostic(path, "expression too deeply nested to analyse; skipped", code="E999")


def _raise_if_out_of_memory() -> None:
    """Python's parser raises MemoryError on deep nesting too: only the memory cap's
    goes on up (to the worker, which reports it); the other is a diagnostic here."""
    from jaxlint import processes

    if processes.hit_memory_cap():
        raise MemoryError


def write_atomic(path: str, data: bytes, fsync: bool = True) -> None:
    """Replace `path` with `data` in one step: a crash leaves the old file or the new one.
    `fsync=False` skips waiting for the disk (a cache, which is checked when read)."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=".jaxlint-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
