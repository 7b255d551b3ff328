"""JAX100: a `# noqa` that suppresses nothing. Its evidence is jaxlint's own: lint the program's
text again with the comment removed, and see whether any code it names fires on its line."""

from __future__ import annotations

import dataclasses
import linecache
import re
from typing import ClassVar

from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, Evidence,
                                           Job, Verdict, verdict)

_NOQA = re.compile(r"#\s*noqa\b(?::\s*(?P<codes>[\w\s,]+))?", re.I)


@dataclasses.dataclass
class NoqaEvidence(Evidence):
    kind: ClassVar[str] = "noqa"
    line: int = 0
    codes: str = ""
    fired: str = ""  # the codes that fire on the line without the comment

    def text(self) -> str:
        fired = self.fired or "none of them"
        return f"with the `# noqa` of line {self.line} removed, jaxlint reports {fired} there " \
               f"(the comment names {self.codes or 'every code'})"


def confirm(job: Job) -> Verdict:
    from jaxlint.linter import lint_string

    lines = linecache.getlines(job.path)
    if not 0 < job.line <= len(lines):
        return verdict(COULD_NOT_RUN, "the line is not in the file", "the file changed since it was linted")
    text = lines[job.line - 1]
    m = _NOQA.search(text)
    if m is None:
        return verdict(COULD_NOT_RUN, f"line {job.line} has no `# noqa`")
    codes = [c for c in re.split(r"[\s,]+", m.group("codes") or "") if c]
    if codes and not any(c.upper().startswith("JAX") for c in codes):
        return verdict(NOT_REPRODUCED, "the `# noqa` names no jaxlint code",
                       NoqaEvidence(line=job.line, codes=", ".join(codes),
                                    note=f"line {job.line}'s `# noqa` is for other tools"))
    stripped = list(lines)
    stripped[job.line - 1] = text[:m.start()].rstrip() + "\n"
    try:
        found = lint_string("".join(stripped), path=job.path, select=["JAX"])
    except ValueError as exc:
        return verdict(COULD_NOT_RUN, "the file does not lint", str(exc))
    fired = sorted({f.code for f in found if f.line == job.line and f.code != "JAX100"
                    and (not codes or f.code in codes)})
    record = NoqaEvidence(line=job.line, codes=", ".join(codes), fired=", ".join(fired))
    if fired:
        return verdict(NOT_REPRODUCED, f"{', '.join(fired)} fires on line {job.line}", record)
    return verdict(CONFIRMED, f"the `# noqa` on line {job.line} suppresses nothing", record)
