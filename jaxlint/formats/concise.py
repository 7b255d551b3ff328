"""`path:line:col: CODE message`, one per line (ruff / flake8 style)."""

from jaxlint.formats import FormatContext, display_path, register, verdict_suffix


@register("concise")
def render(findings, diagnostics, ctx: FormatContext) -> str:
    lines = [f"{display_path(f)}:{f.line}:{f.col}: {f.code} {f.message}{verdict_suffix(f)}"
             for f in findings]
    return "\n".join(lines) + ("\n" if lines else "")
