"""Honesty: for every verdict kind, a decoy (the flagged line is fine, while the same kind of
problem happens elsewhere in the file) is not confirmed, and the real problem is.

The findings are made by hand, as a rule that fires on the wrong line would make them; the
cases live in tests/confirm_cases/decoys.py and import_*.py. One confirm run serves all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from confirm_table import verdicts_by_name
from jaxlint.finding import Finding

pytest.importorskip("jax")

CASES = Path(__file__).parent / "confirm_cases"
D = str(CASES / "decoys.py")
IR = str(CASES / "import_raises.py")
IB = str(CASES / "import_budget.py")
IRM = str(CASES / "import_removed.py")
IG = str(CASES / "import_grad.py")
IGD = str(CASES / "import_grad_decoy.py")
CO = str(CASES / "calls_once.py")


def line_of(path: str, text: str) -> int:
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        if text in line:
            return i
    raise AssertionError(f"{text!r} not in {path}")


def made(path, marker, function, kind, code="JAX999", **confirm) -> Finding:
    line = line_of(path, marker)
    # The nearest `def name(` above the flagged line (two functions here nest a `body`).
    fline = max(i for i, text in enumerate(Path(path).read_text().splitlines()[:line], 1)
                if f"def {function.rsplit('.', 1)[-1]}(" in text) if function else None
    return Finding(path=path, line=line, col=1, end_line=line, end_col=1, code=code,
                   message="", function=function, function_line=fline,
                   confirm={"kind": kind, **confirm})


TBCE = "TracerBoolConversionError"
# name -> (finding, expected verdict)
CASES_BY_NAME = {
    # trace errors: the innermost user frame must be the flagged line, the class exact.
    "trace-real": (made(D, "REAL trace", "check_positive", "trace-error", expected=TBCE), "confirmed"),
    "trace-call-decoy": (made(D, "DECOY trace-call", "calls_helper", "trace-error", expected=TBCE),
                         "not confirmed"),
    "trace-class-decoy": (made(D, "DECOY trace-class", "bool_not_int", "trace-error",
                               expected="ConcretizationTypeError"), "not confirmed"),
    # recompilation: misses of the flagged jit, at the flagged call, in this run only.
    "recompile-real": (made(D, "REAL recompile", "nested_calls", "recompile", fun_name="jit(double)"),
                       "confirmed"),
    "recompile-other-jit-decoy": (made(D, "REAL recompile", "nested_calls", "recompile",
                                       fun_name="jit(inc)"), "not confirmed"),
    "recompile-once-decoy": (made(D, "DECOY recompile-once", "called_once", "recompile",
                                  fun_name="jit(double)"), "not confirmed"),
    # overhead: measured, never assumed.
    "overhead-real": (made(D, "REAL overhead", "made_once", "overhead"), "confirmed"),
    "overhead-decoy": (made(D, "DECOY overhead", "made_once", "overhead"), "not confirmed"),
    # PRNG: distinct keys per parameter; only draws at the flagged sites count.
    "prng-real": (made(D, "REAL prng", "mixed", "prng",
                       previous_line=line_of(D, "DECOY prng-sites")), "confirmed"),
    "prng-params-decoy": (made(D, "DECOY prng-params", "draw_two", "prng",
                               previous_line=line_of(D, "a = jax.random.normal(key_a")), "not confirmed"),
    "prng-sites-decoy": (made(D, "DECOY prng-sites", "mixed", "prng",
                              previous_line=line_of(D, "a = jax.random.normal(k1")), "not confirmed"),
    # leaks: only tracers made by the flagged function's trace.
    "leak-real": (made(D, "REAL leak", "leaky_inner", "leak", global_name="LEAKED"), "confirmed"),
    "leak-self-real": (made(D, "REAL self-leak", "Model.step", "leak"), "confirmed"),
    "leak-decoy": (made(D, "DECOY leak", "calls_leaky", "leak"), "not confirmed"),
    # stale globals: the named global must change the result.
    # stale globals: only the program's own rebinding counts; this module never rebinds
    # (tests/test_confirm_verdicts.py has the program that does).
    "stale-unrebound": (made(D, "DECOY stale", "reads_two", "stale-global", global_name="SCALE"),
                        "could not run"),
    "stale-decoy": (made(D, "DECOY stale", "reads_two", "stale-global", global_name="OTHER"),
                    "not confirmed"),
    # trace-time print: the output of the flagged line itself.
    "print-real": (made(D, "REAL print", "prints_two", "print"), "confirmed"),
    "print-decoy": (made(D, "DECOY print", "prints_two", "print"), "not confirmed"),
    # iterators: jit against disable_jit.
    "iterator-real": (made(D, "REAL iterator", "iter_body.<locals>.body", "iterator"), "confirmed"),
    "iterator-decoy": (made(D, "DECOY iterator", "list_body.<locals>.body", "iterator"), "not confirmed"),
    # the import is a run: an error at the flagged line confirms, elsewhere it cannot run.
    "import-real": (made(IR, "REAL:", "f", "trace-error", expected=TBCE), "confirmed"),
    # g is defined before the import fails in f: traced itself, its own line raises.
    "import-decoy": (made(IR, "DECOY:", "g", "trace-error", expected=TBCE), "confirmed"),
    "import-class-decoy": (made(IR, "REAL:", "f", "trace-error", expected="ConcretizationTypeError"),
                           "not confirmed"),
    # a plain TypeError confirms only with JAX's own wording for the rule's problem.
    "wording-real": (made(IG, "REAL:", None, "trace-error", code="JAX801", expected="TypeError"),
                     "confirmed"),
    "wording-decoy": (made(IGD, "DECOY:", None, "trace-error", code="JAX801", expected="TypeError"),
                      "not confirmed"),
    "budget-real": (made(IB, "REAL:", None, "recompile"), "confirmed"),
    # the import stopped on the limit; `steady` still runs: one compile, not reproduced.
    "budget-decoy": (made(IB, "DECOY:", "steady", "recompile"), "not confirmed"),
    "removed-real": (made(IRM, "REAL:", "setup", "removed-api"), "confirmed"),
    "removed-decoy": (made(IRM, "DECOY:", None, "removed-api"), "not confirmed"),
    # A value fixed at trace time, or a print at trace time, shows from the program's second
    # call: never call a function more often than the program did.
    "iterator-once-decoy": (made(CO, "DECOY iterator-once", "step_once", "iterator"), "not confirmed"),
    "random-once-decoy": (made(CO, "DECOY random-once", "noise_once", "iterator"), "not confirmed"),
    "print-once-decoy": (made(CO, "DECOY print-once", "shape_once", "print"), "not confirmed"),
    "iterator-twice-real": (made(CO, "REAL iterator-twice", "step_twice", "iterator"), "confirmed"),
    "random-twice-real": (made(CO, "REAL random-twice", "noise_twice", "iterator"), "confirmed"),
    "print-twice-real": (made(CO, "REAL print-twice", "shape_twice", "print"), "confirmed"),
    # A counter moved once per trace: one program call moves it as a plain call would.
    "counter-once-decoy": (made(CO, "DECOY counter-once", "count_once", "leak",
                                global_name="CALLS_ONCE"), "not confirmed"),
    "counter-twice-real": (made(CO, "REAL counter-twice", "count_twice", "leak",
                                global_name="CALLS_TWICE"), "confirmed"),
}


@pytest.fixture(scope="module")
def verdicts():
    return verdicts_by_name({n: CASES_BY_NAME[n][0] for n in CASES_BY_NAME})


@pytest.mark.parametrize("name", sorted(CASES_BY_NAME))
def test_verdict(verdicts, name):
    v = verdicts[name]
    want = CASES_BY_NAME[name][1]
    if want == "not confirmed":
        assert v["verdict"] != "confirmed", v
    else:
        assert v["verdict"] == want, v
    assert v["summary"]
    if v["verdict"] != "not reproduced" or "ran" in v["summary"]:
        assert v["evidence"], v


@pytest.mark.parametrize("name, where", [
    ("trace-real", "decoys.py:"),  # file:line of the raise
    ("import-real", "import_raises.py:"),  # traceback excerpt of the import
    ("recompile-real", "distinct signatures"),
    ("overhead-real", " us "),  # a timing
    ("import-decoy", "import_raises.py:14"),  # g's own line, not the import's failure in f
    ("prng-real", "same key"),
    ("leak-self-real", "self.cache"),
    ("budget-real", "cache misses were at line"),
])
def test_evidence_says_what_and_where(verdicts, name, where):
    assert where in verdicts[name]["evidence"], verdicts[name]


def test_decoys_not_reproduced_say_what_ran(verdicts):
    # A decoy that ran is "not reproduced" with what was observed, not a silent pass.
    for name in ("trace-call-decoy", "trace-class-decoy", "prng-params-decoy", "print-decoy",
                 "iterator-decoy", "recompile-once-decoy", "iterator-once-decoy",
                 "random-once-decoy", "print-once-decoy"):
        assert verdicts[name]["verdict"] == "not reproduced", (name, verdicts[name])
