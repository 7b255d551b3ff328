"""One JSON object per line, with the same keys as the `json` format."""

import json

from jaxlint.formats import FormatContext, register
from jaxlint.formats.json_format import all_dicts


@register("json-lines")
def render(findings, diagnostics, ctx: FormatContext) -> str:
    return "".join(json.dumps(d) + "\n" for d in all_dicts(findings, diagnostics))
