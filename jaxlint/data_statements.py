"""Top-level statements that are only data, set aside before any parse.

A module may hold a table: `TABLE = [[1, 0.5, 'a'], ...]` over 100,000 lines, or a
2,000,000-element list on one line. Such a statement holds no JAX pitfall, yet
libcst takes tens of seconds and gigabytes on it, and even Python's own parser
takes seconds and, on the one-line list, over a gigabyte.

So a top-level list, tuple, dict or set made only of literals (numbers, strings,
bytes, None, True, False and containers of them), alone or as `NAME = <literal>`,
of at least `MIN_CHARS` characters, is replaced before parsing by a placeholder of
the same kind whose contents are unknown (`[*()]`, `(*(),)`, `{**{}}`, `{*()}`),
holding the statement's own line breaks, so that every line and column outside it
is unchanged and `NAME` is still known to be a list.

Nothing is parsed to find them: regular expressions (run in C) find each one,
check that it is a well-formed literal (so a syntax error in the data is still
reported by the normal parse), and Python's parser, run on the much smaller text
with placeholders, confirms that each placeholder is the whole value of a
top-level statement (not, say, text inside a string or an argument of a call).
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
from typing import Optional

#: A data statement at least this long is set aside; smaller ones cost libcst little,
#: and their values (a config dict read inside a jitted function) can matter to a rule.
MIN_CHARS = 4096

# A candidate: a line starting with `NAME = [`, `NAME = (`, `NAME = {`, or a bare bracket.
_START = re.compile(r"^(?:[^\W\d]\w*[ \t]*=[ \t]*)?[\[({]", re.M)
# Strings (every prefix but f), comments, brackets: what decides where a bracket closes.
_STRING = (r"""(?:[rR][bB]?|[bB][rR]?|[uU])?(?:'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\""""
           r"""|'(?:[^'\\\r\n]|\\(?:\r\n|.))*'|"(?:[^"\\\r\n]|\\(?:\r\n|.))*")""")
_TOKENS = re.compile(rf"(?P<s>{_STRING})|(?P<c>#[^\r\n]*)|(?P<o>[\[({{])|(?P<e>[\])}}])", re.S)
_END_OF_LINE = re.compile(r"[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n|\Z)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

# The well-formedness check works on a reduced copy: each string becomes `s`, each
# number, None, True and False `0`, whitespace (with comments and `\` continuations)
# one space; then innermost groups of scalars are replaced by `0` until one is left.
_NUMBER = (r"(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+"
           r"|(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][-+]?\d(?:_?\d)*)?[jJ]?)")
_SCALARS = re.compile(rf"(?<![\w.])(?:{_NUMBER}|None|True|False)(?![\w.])")
_SPACE = re.compile(r"(?:\s|\\(?:\r\n|\r|\n))+")
_ALPHABET = re.compile(r"[0s,:+\-\[\](){} ]*")
_CONCATENATED = re.compile(r"s(?: ?s)+")
# Possessive repeats (`*+`): the regex engine keeps no backtracking state per item, so a
# 2,000,000-item list is checked in constant memory.
_S = r" ?[-+ ]*+[0s](?: ?[-+][-+ ]*+[0s])*+"  # a scalar, with unary and binary + and -
_ITEMS = rf"(?:{_S}(?: ?,{_S})*+ ?,?)? ?"
_PAIRS = rf"(?:{_S} ?:{_S}(?: ?,{_S} ?:{_S})*+ ?,?)? ?"
_GROUP = re.compile(rf"\[{_ITEMS}\]|\({_ITEMS}\)|\{{{_PAIRS}\}}|\{{{_ITEMS}\}}")
_SCALAR = re.compile(_S + " ?")
_TUPLE = re.compile(rf"\((?: ?|{_S} ?,{_ITEMS})\)")
_DICT = re.compile(rf"\{{{_PAIRS}\}}")


class _Elided:
    """The literal `text[value:end]` of the statement starting at `start`, and its placeholder."""

    __slots__ = ("start", "value", "end", "placeholder")

    def __init__(self, start: int, value: int, end: int, placeholder: str):
        self.start, self.value, self.end, self.placeholder = start, value, end, placeholder


def set_aside(text: str) -> Optional[tuple[str, ast.Module]]:
    """(`text` with its data statements replaced, Python's tree of that text), or None
    when there is nothing to set aside (or the result does not parse: the caller then
    parses `text` as it is, and reports its errors)."""
    if len(text) < MIN_CHARS:
        return None
    found = _candidates(text)
    if not found:
        return None
    for _ in range(2):
        new, offsets = _replace(text, found)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(new)
        except (SyntaxError, RecursionError, MemoryError, ValueError):
            return None
        confirmed = _confirmed(new, tree, found, offsets)
        if len(confirmed) == len(found):
            return new, tree
        found = confirmed  # a placeholder inside a string or a call: keep that text as it is
        if not found:
            return None
    return None


def _candidates(text: str) -> list[_Elided]:
    out: list[_Elided] = []
    done = 0
    for m in _START.finditer(text):
        start = m.start()
        if start < done:
            continue
        value = m.end() - 1
        end = _closing(text, value)
        if end is None:
            continue
        done = end
        if end - start < MIN_CHARS or not _END_OF_LINE.match(text, end):
            continue
        placeholder = _placeholder(text, value, end)
        if placeholder is not None:
            out.append(_Elided(start, value, end, placeholder))
    return out


def _closing(text: str, start: int) -> Optional[int]:
    """The index after the bracket that closes the one at `start`."""
    depth = 0
    for m in _TOKENS.finditer(text, start):
        kind = m.lastgroup
        if kind == "o":
            depth += 1
        elif kind == "e":
            depth -= 1
            if depth == 0:
                return m.end()
    return None


def _placeholder(text: str, start: int, end: int) -> Optional[str]:
    """The placeholder for the literal `text[start:end]`, or None when it is not one."""
    reduced = _TOKENS.sub(_reduce_token, text[start:end])
    reduced = _SPACE.sub(" ", _SCALARS.sub("0", reduced))
    if not _ALPHABET.fullmatch(reduced):
        return None
    reduced = _CONCATENATED.sub("s", reduced)  # 'a' 'b' is one string
    while True:
        if _TUPLE.fullmatch(reduced):
            filled, close = "(*(),", ")"
            break
        if reduced.startswith("[") and _GROUP.fullmatch(reduced):
            filled, close = "[*()", "]"
            break
        if reduced.startswith("{") and _GROUP.fullmatch(reduced):
            filled, close = ("{**{}", "}") if _DICT.fullmatch(reduced) else ("{*()", "}")
            break
        shorter = _GROUP.sub("0", reduced)
        if shorter == reduced or _SCALAR.fullmatch(shorter):
            return None  # not well formed, or a parenthesised scalar
        reduced = shorter
    # Only blanks and a comment follow on the last line (see _END_OF_LINE): no column
    # there needs to stay where it was.
    return filled + "".join(_LINE_BREAK.findall(text, start, end)) + close


def _reduce_token(m: re.Match) -> str:
    kind = m.lastgroup
    if kind == "s":
        return "s"
    if kind == "c":
        return ""
    return m.group()


def _replace(text: str, found: list[_Elided]) -> tuple[str, list[int]]:
    """The text with each placeholder in, and where each placeholder starts in it."""
    parts, offsets, at, length = [], [], 0, 0
    for e in found:
        parts.append(text[at:e.value])
        length += e.value - at
        offsets.append(length)
        parts.append(e.placeholder)
        length += len(e.placeholder)
        at = e.end
    parts.append(text[at:])
    return "".join(parts), offsets


def _confirmed(new: str, tree: ast.Module, found: list[_Elided], offsets: list[int]) -> list[_Elided]:
    """The placeholders that are the whole value of a top-level statement of `new`."""
    values = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                or isinstance(stmt, ast.Expr):
            v = stmt.value
            if isinstance(v, (ast.List, ast.Tuple, ast.Dict, ast.Set)) and v.lineno == stmt.lineno \
                    and stmt.col_offset == 0:
                values.add((v.lineno, v.col_offset, v.end_lineno, v.end_col_offset))
    line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(new)]
    out = []
    for e, offset in zip(found, offsets):
        end = offset + len(e.placeholder)
        line = bisect.bisect_right(line_starts, offset)
        end_line = bisect.bisect_right(line_starts, end - 1)
        # Python's columns count UTF-8 bytes.
        col = len(new[line_starts[line - 1]:offset].encode("utf-8"))
        end_col = len(new[line_starts[end_line - 1]:end].encode("utf-8"))
        if (line, col, end_line, end_col) in values:
            out.append(e)
    return out
