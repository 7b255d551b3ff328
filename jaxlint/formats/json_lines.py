"""One JSON object per line, with the same keys as the `json` format."""

import json

from jaxlint.formats import FormatContext, register
from jaxlint.formats.json_format import finding_dict


@register("json-lines")
def render(findings, diagnostics, ctx: FormatContext) -> str:
    return "".join(json.dumps(finding_dict(f)) + "\n" for f in findings)
