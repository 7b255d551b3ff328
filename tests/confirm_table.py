"""One confirm run over a table of named cases, for the verdict tests
(test_confirm_honesty, test_confirm_verdicts, test_confirm_realbugs)."""

from __future__ import annotations


def verdicts_by_name(findings: dict) -> dict:
    """Confirm every finding of {name: Finding} in one run; {name: verdict}."""
    from jaxlint.confirm import confirm_findings

    names = list(findings)
    out, _ = confirm_findings([findings[n] for n in names], device="cpu", timeout=60.0)
    return {n: f.verdict for n, f in zip(names, out)}
