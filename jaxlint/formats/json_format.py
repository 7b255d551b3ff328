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
        "fix": None,
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


@register("json")
def render(findings, diagnostics, ctx: FormatContext) -> str:
    return json.dumps([finding_dict(f) for f in findings], indent=2) + "\n"
