"""Jupyter notebooks: lint the code cells together, as the kernel runs them.

The code cells are concatenated in order into one module (a name defined in
cell 2 is known in cell 5), parsed once, and each finding is mapped back to its
cell and to the line and column within that cell.

Cells are numbered as ruff numbers them: 1-based, counting every cell,
markdown and raw cells included, so `cell 3` is the third cell of the file.

IPython syntax is not Python. Each such line becomes a placeholder of the same
line count, so line numbers stay exact:
- `%timeit f(x)` / `%time f(x)` keep their statement (shifted left; columns are
  mapped back), so a finding in it still shows;
- other line magics, `!shell` lines and `obj?` help become `pass`;
- `x = !ls` / `x = %sx ls` become `x = _ipython_magic()` (a value of unknown kind);
- a cell magic that runs Python (`%%time`, `%%timeit`, `%%capture`, ...) keeps its body;
  any other (`%%bash`, `%%writefile`, `%%html`, ...) skips the whole cell;
- a `!` / `%` line ending in `\\` continues on the next lines, which go with it;
- an automagic (a line magic or alias without its `%`: `cd ..`, `pip install -q x`)
  is read as the magic when it is the cell's only line and not Python (IPython
  applies automagic to one-line cells only);
- a cell whose first line is indented loses that indent on every line that has it
  (IPython's `leading_indent`), and a cell of `>>> ` prompts loses its prompts.
These follow IPython's own `TransformerManager.transform_cell` and automagic
prefilter (tests/test_notebooks.py checks examples against it where IPython is installed).
A cell that still does not parse is skipped with one diagnostic, and the others
are linted.

A cell script (the percent format of VS Code, Spyder, PyCharm and jupytext: a .py
file with `# %%` or `#%%` marker lines) is run cell by cell by the same kernels, so
it is read the same way (`script_cells`): the lines between two markers are a cell
(the lines before the first marker too), a `# %% [markdown]` or `[raw]` cell is linted
only when it parses (code under a misplaced marker; prose is left out silently), and
findings keep the file's own lines (no cell number). A file without a marker line is
a plain module, where a magic is a SyntaxError.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
import warnings
from dataclasses import dataclass, replace
from typing import Optional, Union

from jaxlint.config import Settings
from jaxlint.finding import Diagnostic, Finding
from jaxlint.source import _TOO_DEEP, MAX_FILE_BYTES, content_digest, parse_module, read_bytes, source_lines

# Outputs (images, tables) can make a notebook large; the limit on code is
# MAX_FILE_BYTES, as for a .py file. This only bounds what is read at all.
MAX_NOTEBOOK_BYTES = 256 * 1024 * 1024

# Cell magics whose body is Python run in the user's namespace.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit", "mprun"})
# Line magics whose argument is a Python statement run in the user's namespace.
STATEMENT_LINE_MAGICS = frozenset({"time", "timeit"})
# Appended to the statement of a `%timeit` / `%time` line: `# jaxlint-magic: timeit`.
TIMED_MARKER = "# jaxlint-magic: "
# `%timeit` options that take a value (`-n 10`, `-r3`).
_TIMEIT_VALUE_OPTIONS = frozenset({"-n", "-r", "-p"})

# Line magics and aliases that IPython runs without their `%` (automagic is on by
# default): IPython 8's `lsmagic()` line magics, the POSIX aliases, and the package
# managers' magics that Jupyter and Colab add.
AUTOMAGICS = frozenset({
    "alias", "alias_magic", "autoawait", "autocall", "automagic", "bookmark", "cat", "cd", "clear",
    "colors", "conda", "config", "cp", "cpaste", "debug", "dhist", "dirs", "doctest_mode", "ed", "edit",
    "env", "gui", "hist", "history", "killbgscripts", "ldir", "less", "lf", "lk", "ll", "load",
    "load_ext", "loadpy", "logoff", "logon", "logstart", "logstate", "logstop", "ls", "lsmagic", "lx",
    "macro", "magic", "mamba", "man", "matplotlib", "micromamba", "mkdir", "more", "mv", "notebook",
    "page", "paste", "pastebin", "pdb", "pdef", "pdoc", "pfile", "pinfo", "pinfo2", "pip", "popd",
    "pprint", "precision", "prun", "psearch", "psource", "pushd", "pwd", "pycat", "pylab", "quickref",
    "recall", "rehashx", "reload_ext", "rep", "rerun", "reset", "reset_selective", "rm", "rmdir", "run",
    "save", "sc", "set_env", "store", "sx", "system", "tb", "tensorflow_version", "time", "timeit",
    "unalias", "unload_ext", "uv", "who", "who_ls", "whos", "xdel", "xmode",
})
_AUTOMAGIC = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)(?:\s+(?P<rest>.*))?$")
_PROMPT = re.compile(r"^(>>>|\.\.\.)( |$)")

_ASSIGN_MAGIC = re.compile(r"^(?P<lhs>\s*[A-Za-z_][\w.,\s\[\]()*]*?\s*=\s*)(?P<rhs>[!%].*)$")
_HELP = re.compile(r"^\s*(\?\??[\w.]+|[\w.]+\?\??)\s*$")


# Where a line of the module made of the cells comes from: (cell, line in it, columns
# removed from its start, how far a fix may edit it: see `_edit_limits`).
Where = tuple[Optional[int], int, int, Optional[int]]


@dataclass
class CellCode:
    number: int  # 1-based, counting every cell
    source: str  # the cell's own text
    python: list[str]  # the same number of lines, IPython syntax replaced
    offsets: list[int]  # per line: columns removed from the start of the line
    executed: bool = True  # False when its `execution_count` is null: the cell never ran
    first_line: Optional[int] = None  # a cell script's cell: the file line of its first line
    # A cell script's markdown or raw cell: no kernel runs it, but code may sit under such a
    # marker (a license header's `# %% [markdown]` above a whole module), so it is linted
    # when it parses, and left out silently when it does not (prose).
    text: bool = False


@dataclass
class Notebook:
    path: str
    cells: list[CellCode]
    language: str = "python"

    @property
    def ran(self) -> bool:
        """Some code cell ran before the notebook was saved."""
        return any(cell.executed for cell in self.cells)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _statement_magic(line: str) -> Optional[tuple[str, int]]:
    """`%timeit -n 10 f(x)` -> ("f(x)", removed columns), or None."""
    stripped = line.lstrip()
    m = re.match(r"%(\w+)", stripped)
    if not m or m.group(1) not in STATEMENT_LINE_MAGICS:
        return None
    rest_at = len(_indent(line)) + m.end()
    tokens = re.finditer(r"\S+", line[rest_at:])
    start = None
    skip_next = False
    for tok in tokens:
        text = tok.group()
        if skip_next:
            skip_next = False
            continue
        if text.startswith("-") and m.group(1) == "timeit" and re.fullmatch(r"-[a-z]\w*", text):
            skip_next = text in _TIMEIT_VALUE_OPTIONS
            continue
        start = rest_at + tok.start()
        break
    if start is None:
        return None
    statement = line[start:]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(statement)
    except SyntaxError:
        return None
    # The marker tells JAX601 that the kernel times this statement, and how often (the
    # magic's name and options: `timeit -n 1 -r 1`); a comment, so columns stay.
    magic = " ".join([m.group(1)] + line[rest_at:start].split())
    return _indent(line) + statement + f"  {TIMED_MARKER}{magic}", start - len(_indent(line))


def timed_magic(comment: str) -> Optional[list[str]]:
    """The magic a statement's marker comment names, as words (`["timeit", "-n", "1"]`),
    or None for a comment that is no marker."""
    if TIMED_MARKER not in comment:
        return None
    return comment.rsplit(TIMED_MARKER, 1)[1].split() or None


def _python_line(line: str, automagic: bool = False) -> tuple[str, int]:
    """One line of IPython as Python of the same extent: (text, columns removed).
    `automagic`: the line is the whole cell, where IPython reads `cd ..` as `%cd ..`."""
    stripped = line.lstrip()
    if not stripped:
        return line, 0
    if stripped.startswith("%"):
        kept = _statement_magic(line)
        if kept is not None:
            return kept
        return _indent(line) + "pass", 0
    if stripped.startswith("!") or _HELP.match(line):
        return _indent(line) + "pass", 0
    m = _ASSIGN_MAGIC.match(line)
    if m and not stripped.startswith("#"):
        return m.group("lhs") + "_ipython_magic()", 0
    if automagic and _automagic(line):
        text, offset = _python_line(_indent(line) + "%" + stripped)
        return text, offset - 1 if text.strip() != "pass" else 0
    return line, 0


def _automagic(line: str) -> bool:
    """`cd ..`, `pip install -q optax`: a magic's name first, then anything but an
    assignment or an operator, on a line that is not Python."""
    m = _AUTOMAGIC.match(line)
    if not m or m.group("name") not in AUTOMAGICS:
        return False
    rest = m.group("rest") or ""
    if re.match(r"(=[^=]|[-+*/%&|^<>!=,(\[:]=?\s)", rest):
        return False  # `ls = files`, `time + 1`: Python, as IPython's assignment and operator checks say
    return _parses([line.strip()]) is not None


def _leading_indent(lines: list[str]) -> tuple[list[str], list[int]]:
    """IPython's `leading_indent` and prompt stripping: the first line's indent (or a
    `>>> ` prompt) comes off every line that starts with it."""
    first = next((l for l in lines if l.strip()), None)
    if first is None:
        return lines, [0] * len(lines)
    prompt = _PROMPT.match(first)
    if prompt:
        cut = [len(m.group(0)) if (m := _PROMPT.match(l)) else 0 for l in lines]
    else:
        indent = _indent(first)
        cut = [len(indent) if indent and l.startswith(indent) else 0 for l in lines]
    return [l[n:] for l, n in zip(lines, cut)], cut


def _cell_python(source: str) -> Optional[tuple[list[str], list[int]]]:
    """The cell as Python lines (None: a cell magic that does not run Python)."""
    lines, cut = _leading_indent(source_lines(source))
    out: list[str] = []
    offsets: list[int] = []
    first = next((i for i, l in enumerate(lines) if l.strip()), None)
    body_start = 0
    if first is not None and lines[first].lstrip().startswith("%%"):
        m = re.match(r"%%(\w+)", lines[first].lstrip())
        if not m or m.group(1) not in PYTHON_CELL_MAGICS:
            return None
        out.extend([""] * first + ["pass"])
        offsets.extend(cut[:first + 1])
        body_start = first + 1
    # IPython applies automagic only to a cell of one line (InteractiveShell.transform_cell).
    single = first is not None and len(source.splitlines()[first:]) == 1 and body_start == 0
    continued = False
    for line, n in zip(lines[body_start:], cut[body_start:]):
        if continued:  # the rest of a `!cmd \\` or `%magic \\` line
            out.append("")
            offsets.append(n)
            continued = line.rstrip().endswith("\\")
            continue
        text, offset = _python_line(line, single)
        # Inside open brackets, a string or a `\` continuation, `% (a, b)` is Python:
        # IPython looks for magics only where a logical line starts.
        if text != line and _continues(out):
            text, offset = line, 0
        out.append(text)
        offsets.append(offset + n)
        continued = text is not line and line.rstrip().endswith("\\")
    return out, offsets


# The percent format's cell marker, at the start of a line: `# %%`, `#%%`, with an
# optional title and cell type (`# %% [markdown]`), as VS Code's and Spyder's defaults read it.
_CELL_MARKER = re.compile(r"#\s*%%(?P<rest>.*)")
# Cells a kernel never runs (jupytext writes their text as comments).
_TEXT_CELL = re.compile(r"\[\s*(markdown|md|raw)\s*\]", re.I)


def script_cells(text: str) -> Optional[list[CellCode]]:
    """The cells of a cell script, or None when `text` has no cell marker line (a plain
    module). Each cell is read as a notebook's code cell (`_cell_python`); a cell that
    runs no Python (`%%bash`) is left out."""
    if "%%" not in text:
        return None
    lines = source_lines(text)
    marks = _marker_lines(text, lines)
    if not marks:
        return None
    out = []
    starts = ([0] if marks[0] > 0 else []) + [m + 1 for m in marks]
    for number, start in enumerate(starts, 1):
        end = next((m for m in marks if m >= start), len(lines))
        text_cell = start > 0 and bool(_TEXT_CELL.search(_CELL_MARKER.fullmatch(lines[start - 1]).group("rest")))
        body = lines[start:end]
        # The blank lines before the next marker separate cells; an editor runs the cell
        # without them (and IPython's one-line automagic depends on it).
        n = len(body)
        while n and not body[n - 1].strip():
            n -= 1
        converted = _cell_python("".join(line + "\n" for line in body[:n]))
        if converted is None:
            continue
        python, offsets = converted
        blank = len(body) - n
        out.append(CellCode(number, "".join(line + "\n" for line in body), python + [""] * blank,
                            offsets + [0] * blank, first_line=start + 1, text=text_cell))
    return out


def script_source(text: str) -> Optional[tuple[str, list[list[int]]]]:
    """A cell script as the Python its cells run, line for line (markers kept, as comments;
    the cells left out blank), and the [first, last] line of each cell that parses: what
    confirm mode runs, a cell at a time, as for a notebook. None: not a cell script."""
    cells = script_cells(text)
    if cells is None:
        return None
    lines = _script_frame(text)
    spans = []
    for cell in cells:
        if _parses(cell.python) is not None:
            continue
        lines[cell.first_line - 1:cell.first_line - 1 + len(cell.python)] = cell.python
        spans.append([cell.first_line, cell.first_line + len(cell.python) - 1])
    return "\n".join(lines) + "\n", spans


def _script_frame(text: str) -> list[str]:
    """A cell script's lines with its markers kept and every other line blank: where its
    cells' Python is written, line for line."""
    lines = source_lines(text)
    marks = set(_marker_lines(text, lines))
    return [line if i in marks else "" for i, line in enumerate(lines)]


def _marker_lines(text: str, lines: list[str]) -> list[int]:
    """The 0-based lines that are cell markers: comment lines that match, not lines of a
    string (code kept in a docstring, markers and all). Python's tokenizer says which is
    which up to where it stops (IPython syntax, or code that does not parse, may stop it);
    past that, a line that matches is a marker."""
    found = [i for i, line in enumerate(lines) if _CELL_MARKER.fullmatch(line)]
    if not found:
        return found
    comments: set[int] = set()
    reached = len(lines)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT and tok.start[1] == 0:
                comments.add(tok.start[0] - 1)
    except tokenize.TokenError as exc:  # EOF in a string or brackets: from where it opened
        reached = exc.args[1][0] - 1 if len(exc.args) > 1 and isinstance(exc.args[1], tuple) else 0
    except (SyntaxError, ValueError, RecursionError):
        reached = max(comments, default=-1) + 1
    return [i for i in found if i in comments or i >= reached]


def script_shape(text: str) -> Optional[tuple]:
    """What a fix must keep of a cell script: each cell's magic lines, as written, and
    whether it parses (None: not a cell script)."""
    cells = script_cells(text)
    if cells is None:
        return None
    return tuple((tuple(line for line, (_, limit) in zip(source_lines(cell.source), _edit_limits(cell))
                        if limit is not None and limit <= 0), _parses(cell.python) is None) for cell in cells)


def _edit_limits(cell: CellCode) -> list[tuple[int, Optional[int]]]:
    """Per line of the cell: (offset, how far a fix may edit it, in the Python line's
    columns): None, anywhere (Python as written); k > 0, before column k (a `%timeit`
    line: its statement, not the magic); 0, nowhere, though whole lines may go before it
    (a line magic or `!` line); -1, nowhere, nothing before it either (a cell magic's
    first line, the continuation of a `\\` line)."""
    out = []
    for source, python, offset in zip(source_lines(cell.source), cell.python, cell.offsets):
        if python == source[offset:]:
            out.append((offset, None))
        elif TIMED_MARKER in python:
            out.append((offset, python.rindex("  " + TIMED_MARKER) + 1))
        elif not python.strip() or source.lstrip().startswith("%%"):
            out.append((offset, -1))
        else:
            out.append((offset, 0))
    return out


def _continues(previous: list[str]) -> bool:
    """The previous lines leave a logical line open (a bracket, a string, a `\\`)."""
    if not previous:
        return False
    try:
        for _ in tokenize.generate_tokens(io.StringIO("\n".join(previous) + "\n").readline):
            pass
    except tokenize.TokenError:
        return True  # EOF in a multi-line statement or string
    except (SyntaxError, RecursionError, ValueError):
        return False
    return False


def _parses(lines: list[str]) -> Optional[SyntaxError]:
    text = "\n".join(lines) + "\n"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as exc:
        # Newer syntax than this interpreter's (a PEP 701 f-string on 3.11, for a kernel
        # of 3.12): libcst's grammar decides, as for a module (source.vet).
        if not any(word in exc.msg for word in _TOO_DEEP) and _parses_with_libcst(text):
            return None
        return exc
    except (RecursionError, MemoryError, ValueError) as exc:
        return SyntaxError(str(exc))
    return None


def _parses_with_libcst(text: str) -> bool:
    import libcst as cst

    try:
        parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, MemoryError, ValueError):
        return False
    return True


def read_notebook_bytes(path: str) -> Union[bytes, Diagnostic]:
    data = read_bytes(path, MAX_NOTEBOOK_BYTES)
    if isinstance(data, Diagnostic):
        return Diagnostic(path, data.message.replace("cannot read file", "cannot read notebook"))
    return data


def load(path: str, data: Optional[bytes] = None) -> Union[Notebook, Diagnostic]:
    """The notebook's code cells, or one diagnostic saying why it cannot be read."""
    if data is None:
        data = read_notebook_bytes(path)
        if isinstance(data, Diagnostic):
            return data
    if len(data) > MAX_NOTEBOOK_BYTES:
        return Diagnostic(path, f"notebook is larger than {MAX_NOTEBOOK_BYTES // (1024 * 1024)} MiB; skipped")
    try:
        nb = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        return Diagnostic(path, f"notebook is not valid UTF-8: {exc.reason} at byte {exc.start}")
    except json.JSONDecodeError as exc:
        return Diagnostic(path, f"notebook is not valid JSON: {exc.msg} (line {exc.lineno}, "
                                f"column {exc.colno})", line=exc.lineno, col=exc.colno)
    except RecursionError:
        return Diagnostic(path, "notebook JSON is nested too deeply; skipped")
    if not isinstance(nb, dict):
        return Diagnostic(path, "notebook is not a JSON object")
    cells = nb.get("cells")
    if cells is None:
        if "worksheets" in nb:
            return Diagnostic(path, "nbformat 3 notebooks are not supported; "
                                    "convert with `jupyter nbconvert --to notebook`")
        return Diagnostic(path, "notebook has no `cells` list")
    if not isinstance(cells, list):
        return Diagnostic(path, "notebook `cells` is not a list")
    lang = _language(nb.get("metadata"))
    out = []
    code_size = 0
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            return Diagnostic(path, f"cell {number} is not a JSON object")
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        if isinstance(src, list) and all(isinstance(s, str) for s in src):
            src = "".join(src)
        elif not isinstance(src, str):
            return Diagnostic(path, f"cell {number}: `source` is not a string or a list of strings")
        converted = _cell_python(src)
        if converted is None:
            continue
        code_size += len(src)
        if code_size > MAX_FILE_BYTES:
            return Diagnostic(path, f"notebook has more than {MAX_FILE_BYTES // (1024 * 1024)} MiB "
                                    f"of code; skipped")
        executed = not ("execution_count" in cell and cell["execution_count"] is None)
        out.append(CellCode(number, src, *converted, executed=executed))
    return Notebook(path, out, lang)


def _language(meta) -> str:
    """The kernel's language; metadata of the wrong shape (hand-edited, other tools) means Python."""
    meta = meta if isinstance(meta, dict) else {}
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        table = meta.get(key)
        value = table.get(field) if isinstance(table, dict) else None
        if isinstance(value, str) and value:
            return value.lower()
    return "python"


def cell_sources(path: str) -> dict[int, str]:
    """Each code cell's own text by cell number (empty when unreadable)."""
    nb = load(path)
    return {} if isinstance(nb, Diagnostic) else {c.number: c.source for c in nb.cells}


def lint_notebook(path: str, settings: Settings, data: Optional[bytes] = None):
    from jaxlint.linter import FileResult, lint_text, needs_analysis

    result = FileResult(path)
    if data is None:
        data = read_notebook_bytes(path)
        if isinstance(data, Diagnostic):
            result.diagnostics.append(data)
            return result
    result.sha256 = content_digest(data)
    nb = load(path, data)
    if isinstance(nb, Diagnostic):
        result.diagnostics.append(nb)
        return result
    if nb.language != "python":
        return result  # an R or Julia notebook: nothing for jaxlint
    return _lint_cells(result, nb.cells, settings, nb.ran)


def lint_cell_script(path: str, text: str, settings: Settings, cells: Optional[list[CellCode]] = None,
                     codes: Optional[frozenset[str]] = None, apply_noqa: bool = True):
    """A cell script's code cells (`script_cells`), linted together as a notebook's are;
    findings and diagnostics at the file's own lines and columns."""
    from jaxlint.linter import FileResult

    cells = script_cells(text) if cells is None else cells
    return _lint_cells(FileResult(path), cells or [], settings, ran=False, codes=codes, apply_noqa=apply_noqa,
                       frame=_script_frame(text))


def _lint_cells(result, cells: list[CellCode], settings: Settings, ran: bool,
                codes: Optional[frozenset[str]] = None, apply_noqa: bool = True,
                frame: Optional[list[str]] = None):
    """`frame`: a cell script's lines, its markers kept and the rest blank (`_script_frame`):
    the module keeps the file's lines, so that every line a finding, a message or its
    confirm details name is the file's, and confirm runs the same text (`script_source`)."""
    from jaxlint.linter import lint_text, needs_analysis

    path = result.path
    if not needs_analysis("\n".join(line for cell in cells for line in cell.python), settings):
        # As for a module: a notebook whose code never mentions jax has no findings, and the
        # cells it cannot parse (C or MATLAB listings kept in notes) are not reported either.
        return result
    lines: list[str] = []
    # Per module line: (cell, line, offset, edit limit); a cell script's cell is None and
    # its line the file's.
    where: list[Where] = []
    starts: list[int] = []  # the module line each cell starts on
    for cell in cells:
        err = _parses(cell.python)
        if err is not None:
            if cell.text:
                continue  # a markdown cell's prose
            if _parses_with_top_level_await(cell.python):
                continue  # IPython's autoawait: valid in a notebook, not analysable as a module
            if not cell.executed and ran and _note_line(cell.python, err.lineno):
                continue  # a note kept in a cell nobody ran (a terminal command, pasted output)
            line = err.lineno or 1
            if cell.first_line is not None:
                at = cell.offsets[line - 1] if 0 < line <= len(cell.offsets) else 0
                result.diagnostics.append(Diagnostic(
                    path, f"SyntaxError: {err.msg}; cell skipped", line=cell.first_line + line - 1,
                    col=err.offset + at if err.offset else None, code="E999"))
                continue
            result.diagnostics.append(Diagnostic(
                path, f"cell {cell.number}, line {line}: SyntaxError: {err.msg}; cell skipped",
                line=line, col=err.offset or None, code="E999", cell=cell.number))
            continue
        script = cell.first_line is not None
        if frame is not None:
            # What lies between two cells (a marker, a cell left out) stands as in the frame;
            # nothing edits it, and nothing goes before a cell left out.
            for n in range(len(lines), cell.first_line - 1):
                lines.append(frame[n])
                where.append((None, n + 1, 0, 0 if frame[n] else -1))
        starts.append(len(lines) + 1)
        for i, (text, (offset, limit)) in enumerate(zip(cell.python, _edit_limits(cell)), 1):
            lines.append(text)
            where.append((None, cell.first_line + i - 1, offset, limit) if script
                         else (cell.number, i, offset, limit))
    if not lines:
        return result
    module = lint_text("\n".join(lines) + "\n", path, settings, codes=codes, apply_noqa=apply_noqa,
                       cells=tuple(starts))
    result.diagnostics.extend(module.diagnostics)
    result.findings = [_to_cell(f, where) for f in module.findings]
    result.findings.sort(key=lambda f: f.sort_key)
    return result


# Lines that are plainly no Python: a command for a terminal (a program that is no
# IPython automagic, followed by its arguments), a list of IP addresses, a path or a
# shell prompt at the start of a line, and the box-drawing characters of pasted
# terminal output.
SHELL_PROGRAMS = frozenset({
    "apt", "apt-get", "bash", "brew", "chmod", "cmake", "conda", "curl", "deepspeed", "docker", "export",
    "g++", "gcc", "gcloud", "git", "gsutil", "kubectl", "make", "mpiexec", "mpirun", "nvcc",
    "nvidia-smi", "python", "python3", "qsub", "rsync", "salloc", "sbatch", "scp", "sh", "source",
    "srun", "ssh", "sudo", "tar", "tmux", "torchrun", "unzip", "wget",
})
_COMMAND = re.compile(r"^\s*(?P<program>[\w+.-]+)\s+(?P<rest>\S.*)$")
_ADDRESS = r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(:\d+)?"
_NOTE_LINE = re.compile(rf"^\s*({_ADDRESS}(\s*[,;]?\s*{_ADDRESS})*\s*,?|[/$].*)$|[\u2500-\u257f]")


def _note_line(lines: list[str], lineno: Optional[int]) -> bool:
    """The line a cell fails on is plainly no Python (see SHELL_PROGRAMS)."""
    if not lineno or not 0 < lineno <= len(lines):
        return False
    line = lines[lineno - 1]
    if _NOTE_LINE.search(line):
        return True
    command = _COMMAND.match(line)
    return command is not None and command.group("program") in SHELL_PROGRAMS \
        and not command.group("rest").startswith(("=", "(", "[", ".", ","))


def _parses_with_top_level_await(lines: list[str]) -> bool:
    try:
        compile("\n".join(lines) + "\n", "<cell>", "exec",
                flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


_LINE_REF = re.compile(r"\b(?P<prep>(?:on|at|in) )?line (?P<n>\d+)\b")


def _message_lines(message: str, cell: Optional[int], where: list[Where]) -> str:
    """Rules cite other lines of the module ("drew random numbers on line 37"): cite cells instead."""
    def cite(m: re.Match) -> str:
        n = int(m.group("n"))
        if not 0 < n <= len(where):
            return m.group(0)
        ref_cell, ref_line, _, _ = where[n - 1]
        if ref_cell == cell:
            return f"{m.group('prep') or ''}line {ref_line}"
        return f"in cell {ref_cell}, line {ref_line}"
    return _LINE_REF.sub(cite, message)


def _to_cell(f: Finding, where: list[Where]) -> Finding:
    cell, line, offset, _ = where[f.line - 1]
    end_cell, end_line, end_offset, _ = where[min(f.end_line, len(where)) - 1]
    if end_cell != cell:  # cannot happen: a node lies within one cell
        end_line, end_offset = line, offset
    return replace(f, cell=cell, line=line, col=f.col + offset,
                   end_line=end_line, end_col=f.end_col + end_offset,
                   message=_message_lines(f.message, cell, where), fix=_fix_to_cells(f.fix, where))


def _fix_to_cells(fix: Optional[dict], where: list[Where]) -> Optional[dict]:
    """A fix's edits in cell coordinates: each edit names its cell (an added import may
    sit in another cell than the finding; a cell script's edits name none, their lines
    are the file's). An edit that spans cells, or touches a magic (see `_edit_limits`),
    is dropped with its fix: a fix never rewrites IPython syntax."""
    if not fix or not fix.get("edits"):
        return fix
    edits = []
    for e in fix["edits"]:
        row, col = e["location"]["row"], e["location"]["column"]
        end_row, end_col = e["end_location"]["row"], e["end_location"]["column"]
        if not (0 < row <= len(where) and 0 < end_row <= len(where) + 1):
            return None
        if not _editable(where, row, col, end_row, end_col, e["content"]):
            return None
        cell, line, offset, _ = where[row - 1]
        if (row, col) == (end_row, end_col) and col == 1 and e["content"].endswith("\n"):
            offset = 0  # whole lines inserted before this one
        if end_row == len(where) + 1:  # just past the last line: the end of the last cell
            end_cell, end_line, end_offset = where[-1][0], where[-1][1] + 1, 0
        else:
            end_cell, end_line, end_offset, _ = where[end_row - 1]
        if end_cell != cell:
            return None
        edit = {"content": e["content"], "location": {"row": line, "column": col + offset},
                "end_location": {"row": end_line, "column": end_col + end_offset}}
        if cell is not None:  # a cell script's edit is the file's, as a module's is
            edit["cell"] = cell
        edits.append(edit)
    return {**fix, "edits": edits}


def _editable(where: list[Where], row: int, col: int, end_row: int, end_col: int, content: str) -> bool:
    """The edit leaves IPython syntax as it is (see `_edit_limits`): it touches no magic,
    and on a `%timeit` line it ends within the statement."""
    if (row, col) == (end_row, end_col) and col == 1 and content.endswith("\n"):
        return row > len(where) or where[row - 1][3] != -1  # whole lines inserted before this one
    for r in range(row, min(end_row, len(where)) + 1):
        limit = where[r - 1][3]
        if limit is not None and (limit <= 0 or (r == end_row and end_col > limit)):
            return False
    return True
