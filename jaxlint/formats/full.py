"""The default format: location, code, message, and the source line with a caret."""

from jaxlint.formats import FormatContext, display_path, register, verdict_suffix
from jaxlint.source import source_lines


@register("full")
def render(findings, diagnostics, ctx: FormatContext) -> str:
    out = []
    split: dict[str, list[str]] = {}  # each file is split once, not once per finding
    for f in findings:
        out.append(f"{display_path(f)}:{f.line}:{f.col}: {f.code} {f.message}{verdict_suffix(f)}")
        text = ctx.sources.get(f.path)
        if text is not None and not f.cell:
            lines = split.get(f.path)
            if lines is None:
                lines = split[f.path] = source_lines(text)
            if 0 < f.line <= len(lines):
                src = lines[f.line - 1].expandtabs(1)
                width = f.end_col - f.col if f.end_line == f.line else len(src) - f.col + 1
                out.append(f"  {f.line:>4} | {src}")
                out.append("       | " + " " * (f.col - 1) + "^" * max(1, width))
        fix = f.fix if isinstance(f.fix, dict) else None
        if fix and fix.get("message"):
            # ruff's "help:" line; the applicability says which flag applies it.
            how = {"safe": "--fix", "unsafe": "--fix --unsafe-fixes"}.get(fix.get("applicability"), "")
            applies = f" ({how})" if how and fix.get("edits") else ""
            out.append(f"       = fix{applies}: {fix['message']}")
        if f.verdict and f.verdict.get("evidence") and f.verdict.get("evidence") != f.verdict.get("summary"):
            out.append(f"       = {f.verdict['verdict']}: {f.verdict['evidence']}")
        out.append("")
    return "\n".join(out) + ("\n" if out and out[-1] != "" else "")
