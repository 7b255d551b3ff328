"""Building edits from the file's model: node ranges, statements, imports, names.

Fixes are libcst-aware: an edit replaces exactly one node's source range, or
inserts whole lines before a statement; names a fix writes are spelled through
the file's own imports (`jnp.prod`, not `jax.numpy.prod`, when the file has
`import jax.numpy as jnp`), and a missing `import jax` is added with the fix.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.model import FileModel
from jaxlint.fixes.edits import Edit

# Submodules that `import jax` does not load: a fix that names them imports them.
_EXPLICIT_IMPORT = ("jax.extend.backend", "jax.extend.core", "jax.example_libraries.optimizers", "jax.example_libraries.stax")


def node_range(model: FileModel, node: cst.CSTNode) -> tuple[int, int, int, int]:
    pos = model.positions[node]
    return pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1


def replace(model: FileModel, node: cst.CSTNode, content: str) -> Edit:
    return Edit(*node_range(model, node), content)


def code(model: FileModel, node: cst.CSTNode) -> str:
    return model.module.code_for_node(node)


def statement_of(model: FileModel, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The statement line (or compound statement) that holds `node`."""
    for anc in [node, *model.ancestors(node)]:
        if isinstance(anc, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return anc
    return None


def line_text(model: FileModel, line: int) -> str:
    lines = model.__dict__.get("_code_lines")
    if lines is None:  # printing the whole module is slow: once per file, not once per fix
        lines = model._code_lines = model.module.code.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


def insert_before(model: FileModel, stmt: cst.CSTNode, lines: list[str]) -> Optional[Edit]:
    """Lines inserted before a statement, at its indentation.

    None when the statement shares its line with another (`a = 1; b = 2`) or
    follows a colon on the same line (`for x in y: f(x)`).
    """
    pos = model.positions[stmt]
    text = line_text(model, pos.start.line)
    indent = text[: len(text) - len(text.lstrip())]
    if pos.start.column != len(indent):
        return None
    content = "".join(f"{indent}{line}\n" for line in lines)
    return Edit(pos.start.line, 1, pos.start.line, 1, content)


# Names -----------------------------------------------------------------------
def _import_names(model: FileModel, anchor: cst.CSTNode) -> dict[str, str]:
    """Names visible at `anchor` that are bound to a module or name by import: name -> qualname."""
    scope = model.scope_of(anchor)
    out = {}
    for name in scope.module.bindings:
        q = scope.resolve_import(name)
        if q and not q.startswith("builtins."):
            out[name] = q
    return out


def _top_import_line(model: FileModel) -> int:
    """The line after the module docstring, `__future__` imports and the leading imports."""
    body = model.module.body
    if not body:
        return len(model.module.code.splitlines()) + 1
    # Before the first statement: after a shebang, encoding line or header comments.
    line = model.positions[body[0]].start.line
    for i, stmt in enumerate(body):
        if not isinstance(stmt, cst.SimpleStatementLine):
            break
        small = stmt.body[0] if stmt.body else None
        is_doc = i == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString,
                                                                                  cst.ConcatenatedString))
        if is_doc or isinstance(small, (cst.Import, cst.ImportFrom)):
            line = model.positions[stmt].end.line + 1
            continue
        break
    return line


def import_edit(model: FileModel, module: str) -> Edit:
    line = _top_import_line(model)
    return Edit(line, 1, line, 1, f"import {module}\n")


def spell(model: FileModel, qualname: str, anchor: cst.CSTNode) -> tuple[str, list[Edit]]:
    """How to write `qualname` at `anchor` with this file's imports, and any import to add."""
    names = _import_names(model, anchor)
    edits = []
    needs = next((m for m in _EXPLICIT_IMPORT if qualname == m or qualname.startswith(m + ".")), None)
    if needs is not None and not _imports_module(model, needs):
        edits.append(import_edit(model, needs))  # `import jax.extend.backend` also binds `jax`
    best = None
    for name, q in names.items():
        if (qualname == q or qualname.startswith(q + ".")) and (best is None or len(q) > len(names[best])):
            best = name
    if best is not None:
        return best + qualname[len(names[best]):], edits
    if needs is None:
        edits.append(import_edit(model, qualname.split(".")[0]))
    return qualname, edits


def _imports_module(model: FileModel, module: str) -> bool:
    for stmt in model.nodes(cst.Import):
        for alias in stmt.names:
            from jaxlint.engine.scopes import dotted_name

            if dotted_name(alias.name) == module and alias.asname is None:
                return True
    return False


_ATOMIC = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary,
           cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Tuple, cst.Dict,
           cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def parenthesize(node: cst.CSTNode, text: str) -> str:
    """Wrap an expression in parentheses unless it is atomic where it stands."""
    if isinstance(node, _ATOMIC) or getattr(node, "lpar", ()):
        return text
    return f"({text})"
