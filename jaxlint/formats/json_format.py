"""A JSON array of objects with ruff's keys."""

import json

from jaxlint.formats import FormatContext, register, rule_url


def finding_dict(f) -> dict:
    d = {
        "code": f.code,
        "message": f.message,
        "filename": f.path,
        "location": {"row": f.line, "column": f.col},
        "end_location": {"row": f.end_line, "column": f.end_col},
        "fix": f.fix,
        "url": rule_url(f.code),
        "noqa_row": f.line,
        "name": f.name,
        "severity": f.severity,
    }
    if f.cell:
        d["cell"] = f.cell
    if f.verdict is not None:
        d["confirm"] = f.verdict
    return d


def diagnostic_dict(d) -> dict:
    """A file jaxlint could not lint (E999 syntax error, E902 unreadable), with the same keys."""
    line = d.line or 1
    col = d.col or 1
    out = {
        "code": d.code,
        "message": d.message,
        "filename": d.path,
        "location": {"row": line, "column": col},
        "end_location": {"row": line, "column": col},
        "fix": None,
        "url": None,
        "noqa_row": None,
        "name": "syntax-error" if d.code == "E999" else "io-error" if d.code == "E902" else "internal-error",
        "severity": "error",
    }
    if getattr(d, "cell", None):
        out["cell"] = d.cell
    return out


def all_dicts(findings, diagnostics) -> list[dict]:
    return [diagnostic_dict(d) for d in diagnostics] + [finding_dict(f) for f in findings]


@register("json")
def render(findings, diagnostics, ctx: FormatContext) -> str:
    return json.dumps(all_dicts(findings, diagnostics), indent=2) + "\n"
