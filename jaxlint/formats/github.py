"""GitHub Actions workflow commands: one `::error file=...,line=...::message` per finding.

GitHub turns these into annotations on the pull request. Escaping follows the
Actions toolkit (`@actions/core` command.ts): in the message `%`, `\\r` and `\\n`
are percent-encoded; in a property value `:` and `,` are too.
"""

import os

from jaxlint.formats import FormatContext, register, verdict_suffix


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _workspace_path(path: str) -> str:
    """GitHub resolves `file=` against the workspace, the job's working directory."""
    if not os.path.isabs(path):
        return path
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def annotation(f) -> str:
    level = {"warning": "warning", "info": "notice"}.get(f.severity, "error")
    title = f"{f.code}" + (f" (cell {f.cell})" if f.cell else "")
    props = {
        "file": _workspace_path(f.path),
        "line": f.line,
        "col": f.col,
        "endLine": f.end_line,
        "endColumn": f.end_col,
        "title": title,
    }
    prop_text = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items())
    return f"::{level} {prop_text}::{escape_data(f'{f.code} {f.message}{verdict_suffix(f)}')}"


def diagnostic_annotation(d) -> str:
    """E999 / E902: a file that could not be linted is an error on the pull request too."""
    props = {"file": _workspace_path(d.path)}
    if d.line and not d.cell:  # a cell's line is not a line of the notebook file
        props["line"] = d.line
        if d.col:
            props["col"] = d.col
    props["title"] = d.code
    prop_text = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items())
    return f"::error {prop_text}::{escape_data(f'{d.code} {d.message}')}"


@register("github")
def render(findings, diagnostics, ctx: FormatContext) -> str:
    lines = [diagnostic_annotation(d) for d in diagnostics] + [annotation(f) for f in findings]
    return "\n".join(lines) + ("\n" if lines else "")
