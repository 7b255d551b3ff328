"""Recipes fixed on the real-bug corpus (benchmarks/realbugs/confirm_recall.py), each shown
by the program's own run under real JAX, beside a decoy where a looser check would confirm:
an error at the flagged line that is not the one predicted, a line after the one that
raised, a NumPy array updated in place, a print of a concrete shape.

Real findings come from the rules; decoy findings are made by hand, as a rule would make them
(the rules do not flag the decoys). One confirm run serves all."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.config import Settings
from confirm_table import verdicts_by_name
from jaxlint.finding import Finding
from jaxlint.linter import lint_file

pytest.importorskip("jax")

CASES = Path(__file__).parent / "confirm_cases" / "realbugs"


def line_of(path: Path, text: str) -> int:
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return i
    raise AssertionError(f"{text!r} not in {path}")


def found(name: str, marker: str, code: str) -> Finding:
    path = CASES / name
    line = line_of(path, marker)
    hits = [f for f in lint_file(str(path), Settings(select=("JAX",))).findings
            if f.code == code and f.line == line]
    assert hits, f"{code} not reported at {name}:{line}"
    return hits[0]


def made(name, marker, function, code, kind=None, **confirm) -> Finding:
    path = CASES / name
    line = line_of(path, marker)
    fline = max(i for i, text in enumerate(path.read_text().splitlines()[:line], 1)
                if f"def {function}(" in text) if function else None
    details = {"kind": kind, **confirm} if kind else dict(confirm)
    return Finding(path=str(path), line=line, col=1, end_line=line, end_col=1, code=code,
                   message="", function=function, function_line=fline, confirm=details)


# name -> (finding, expected verdict, words the evidence must hold)
CASES_BY_NAME = {
    # vmap's own wording for mismatched sizes; the call raises at its first line, the finding
    # is on its second argument's line.
    "vmap-sizes": (lambda: found("vmap_sizes.py", "REAL sizes", "JAX804"), "confirmed",
                   "inconsistent sizes"),
    "vmap-other-valueerror": (lambda: made("vmap_other_error.py", "DECOY wording", None, "JAX804",
                                           "trace-error", expected="ValueError"),
                              "not reproduced", "invalid literal"),
    "vmap-line-after": (lambda: made("vmap_other_error.py", "DECOY next line", None, "JAX804",
                                     "trace-error", expected="ValueError"),
                        "could not run", ""),
    # The same donating function called again: ValueError; any other read: RuntimeError.
    "donated-again": (lambda: found("donated_again.py", "REAL again", "JAX805"), "confirmed",
                      "Buffer has been deleted or donated"),
    "donated-read": (lambda: found("donated_again.py", "REAL read", "JAX805"), "confirmed",
                     "Array has been deleted"),
    "tile-traced-reps": (lambda: found("tile_reps.py", "REAL tile", "JAX207"), "confirmed",
                         "__hash__"),
    "loop-rebind": (lambda: found("loop_rebind.py", "REAL rebind", "JAX302"), "confirmed",
                    "still holds"),
    "loop-numpy-in-place": (lambda: made("loop_rebind.py", "DECOY in place", None, "JAX302"),
                            "not reproduced", "same object"),
    # A counter on `self`, in a method jitted as a bound method: the program's own calls.
    "self-counter": (lambda: found("method_counter.py", "REAL counter", "JAX102"), "confirmed",
                     "went 0 -> 1 -> 1 -> 1"),
    "self-counter-retraced": (lambda: found("method_counter.py", "DECOY retraced", "JAX102"),
                              "not reproduced", "went 0 -> 1 -> 2 -> 3"),
    # Draws inside a function the program jits: its keys are tracers there; the program's
    # own first call, with its arguments, without jit, shows the keys.
    "jitted-same-key": (lambda: made("jitted_draws.py", "REAL same key", "kernel", "JAX501",
                                     "prng", previous_line=line_of(CASES / "jitted_draws.py",
                                                                   "# first draw")),
                        # Under jit the numbers are not followed: the program's own call, without
                        # jit, shows both draws in the result.
                        "confirmed", "both in the function's result; arguments: as called at line"),
    "jitted-split-keys": (lambda: made("jitted_draws.py", "DECOY split", "split_kernel", "JAX501",
                                       "prng", previous_line=line_of(CASES / "jitted_draws.py",
                                                                     "split first draw")),
                          "not reproduced", "(at import)"),
    # timeit of a jitted call: the timed lambda's own result, still computing when it returned
    # and timeit read the clock (the lambda frame is read, never waited on: that would move
    # the clock; what was left is waited for once timeit returned, and compared with its time).
    "timeit-unwaited": (lambda: found("timed_calls.py", "REAL unwaited", "JAX601"), "confirmed",
                        "the lambda's result was still computing"),
    "timeit-waited": (lambda: made("timed_calls.py", "DECOY waited", None, "JAX601", "timing"),
                      "not reproduced", "in the program's own run"),
    # The program's own gradient, printed and bound to no name: NaN while the where ran.
    "where-grad-nan": (lambda: found("where_grad.py", "REAL where", "JAX701"), "confirmed",
                       "[ nan 0.25]"),
    "where-grad-double": (lambda: made("where_grad.py", "DECOY double where", "safe_sqrt",
                                       "JAX701"), "not reproduced", "got no NaN"),
    # A NaN gradient elsewhere in the program, while the flagged line ran only outside grad.
    "where-grad-elsewhere": (lambda: made("where_grad.py", "DECOY not differentiated", "other",
                                          "JAX701"), "not reproduced", "got no NaN"),
    "vmap-print": (lambda: found("vmap_print.py", "REAL print", "JAX101"), "confirmed",
                   "VmapTracer"),
    # `x` holds a tracer when the line runs, but the print writes `x.shape`: the program's
    # run is no evidence (a jit-traced rerun may still be).
    "vmap-print-shape": (lambda: made("vmap_print.py", "DECOY shape", "show_shape", "JAX101",
                                      "print"), "not from the program's run", ""),
}


@pytest.fixture(scope="module")
def verdicts():
    return verdicts_by_name({n: CASES_BY_NAME[n][0]() for n in CASES_BY_NAME})


@pytest.mark.parametrize("name", sorted(CASES_BY_NAME))
def test_verdict(verdicts, name):
    v = verdicts[name]
    _, want, words = CASES_BY_NAME[name]
    if want == "not from the program's run":
        assert "while the module ran" not in v["evidence"], v
        return
    if want != "confirmed" and v["verdict"] == "could not run" and v["record"].get("why") == "time":
        return  # a loaded machine may stop a decoy on its time limit: never "confirmed" is the claim
    assert v["verdict"] == want, v
    assert words in v["evidence"], v
