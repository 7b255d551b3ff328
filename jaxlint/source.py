"""Reading a file into text, and parsing it safely.

Bad input never raises out of here: it becomes a `Diagnostic`.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from typing import TYPE_CHECKING, Optional, Union

from jaxlint.finding import Diagnostic

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

# Files larger than this are not parsed: libcst's cost grows faster than linear
# on pathological input, and no hand-written module is this big.
MAX_FILE_BYTES = 8 * 1024 * 1024


def read_source(path: str, data: Optional[bytes] = None) -> Union[str, Diagnostic]:
    """The decoded text of a file (PEP 263 encodings), or why it cannot be read."""
    if data is None:
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_FILE_BYTES + 1)
        except IsADirectoryError:
            return Diagnostic(path, "is a directory, not a file")
        except OSError as exc:
            return Diagnostic(path, f"cannot read file: {exc.strerror or exc}")
    if len(data) > MAX_FILE_BYTES:
        return Diagnostic(path, f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; skipped")
    if b"\0" in data:
        return Diagnostic(path, "binary file (contains NUL bytes); skipped")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
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


def parse_source(text: str, path: str) -> Union["cst.Module", Diagnostic]:
    """Parse with libcst, after Python's own parser has vetted the input.

    Python's parser rejects in milliseconds the deeply nested input that makes
    libcst crash the interpreter or take seconds, and its syntax errors are the
    ones users know.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text, filename=path)
    except SyntaxError as exc:
        msg = exc.msg
        python_error = Diagnostic(path, f"SyntaxError: {msg}", line=exc.lineno, col=exc.offset, code="E999")
        if any(word in msg for word in _TOO_DEEP):
            return python_error
        # Newer syntax than this interpreter's (PEP 695 `type X = ...` on 3.11):
        # libcst's grammar decides. Its own syntax error is reported as Python's.
        return _parse_libcst(text, path, python_error)
    except (RecursionError, MemoryError):
        return Diagnostic(path, "expression too deeply nested to analyse; skipped", code="E999")
    except ValueError as exc:
        return Diagnostic(path, f"cannot parse file: {exc}", code="E999")
    return _parse_libcst(text, path, None)


#: Python's messages for input too deep to hand to libcst's parser.
_TOO_DEEP = ("too many nested", "too complex", "too many statically nested")


def _parse_libcst(text: str, path: str, python_error: Optional[Diagnostic]):
    import libcst as cst

    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        if python_error is not None:
            return python_error
        return Diagnostic(path, f"SyntaxError: {exc.message}", line=exc.raw_line,
                          col=exc.raw_column + 1, code="E999")
    except (RecursionError, MemoryError):
        return Diagnostic(path, "expression too deeply nested to analyse; skipped", code="E999")
