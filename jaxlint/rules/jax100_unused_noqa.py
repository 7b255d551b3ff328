"""JAX100: a `# noqa: JAX...` code that suppresses nothing, or names no rule (opt-in).

The check needs every finding of the file, before `# noqa` filtering, so the
linter runs it after the other rules (jaxlint.fixes.noqa); this class registers
the code, its name and its page.
"""

from __future__ import annotations

from jaxlint.rules.base import Rule


class UnusedNoqa(Rule):
    code = "JAX100"
    name = "unused-noqa"
    summary = "A `# noqa: JAX...` code that suppresses nothing on its line, or that names no rule"
    severity = "warning"
    default = False

    def check(self):
        return iter(())
