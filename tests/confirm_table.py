"""One confirm run over a table of named cases, for the verdict tests
(test_confirm_honesty, test_confirm_verdicts, test_confirm_realbugs)."""

from __future__ import annotations


def verdicts_by_name(findings: dict) -> dict:
    """Confirm every finding of {name: Finding} in one run; {name: verdict}."""
    from jaxlint.confirm import confirm_findings

    names = list(findings)
    out, _ = confirm_findings([findings[n] for n in names], device="cpu", timeout=60.0)
    return {n: f.verdict for n, f in zip(names, out)}


def marked_finding(path: str, marker: str, function: str, code: str, **confirm):
    """A finding of `code` at the line of `path` that holds `marker`, in `function` (its
    `def` line found by name), with the confirm details a rule would give."""
    from pathlib import Path

    from jaxlint.finding import Finding

    lines = Path(path).read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if marker in text)
    fline = next(i for i, text in enumerate(lines, 1) if f"def {function}(" in text)
    return Finding(path=path, line=line, col=1, end_line=line, end_col=1, code=code, message="",
                   function=function, function_line=fline, confirm=confirm)
