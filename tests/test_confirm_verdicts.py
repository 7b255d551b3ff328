"""Observed, never staged: one decoy per verdict kind where a recipe that rebinds a global, calls
the program's function again, or passes arguments no call site passes would say "confirmed"
(tests/confirm_cases/staged.py), beside real cases of the same kinds. Every verdict names the
platform it ran on and carries a typed evidence record.

The findings are made by hand, as a rule would make them; one confirm run serves all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from confirm_table import verdicts_by_name
from jaxlint.finding import Finding

pytest.importorskip("jax")

CASES = Path(__file__).parent / "confirm_cases"
S = str(CASES / "staged.py")
U = str(CASES / "unrolled.py")
X64 = str(CASES / "x64_program.py")
G = str(CASES / "removed_guarded.py")
K = str(CASES / "kernel_refs.py")
C = str(CASES / "clock.py")
TBCE = "TracerBoolConversionError"


def line_of(path: str, text: str) -> int:
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        if text in line:
            return i
    raise AssertionError(f"{text!r} not in {path}")


def made(path, marker, function, code, kind=None, **confirm) -> Finding:
    line = line_of(path, marker)
    fline = max(i for i, text in enumerate(Path(path).read_text().splitlines()[:line], 1)
                if f"def {function}(" in text) if function else None
    details = {"kind": kind, **confirm} if kind else dict(confirm)
    return Finding(path=path, line=line, col=1, end_line=line, end_col=1, code=code, message="",
                   function=function, function_line=fline, confirm=details)


# name -> (finding, expected verdict, the record kind)
CASES_BY_NAME = {
    "stale-real": (made(S, "REAL stale", "scaled", "JAX103", "stale-global", global_name="SCALE"),
                   "confirmed", "stale-value"),
    "stale-same-value": (made(S, "DECOY same-value", "rated", "JAX103", "stale-global",
                              global_name="RATE"), "not reproduced", "stale-value"),
    "stale-clear-cache": (made(S, "DECOY clear-cache", "stepped", "JAX103", "stale-global",
                               global_name="STEP"), "not reproduced", "stale-value"),
    "trace-vmap-flag": (made(S, "DECOY vmap-flag", "apply", "JAX201", "trace-error", expected=TBCE),
                        "not reproduced", None),
    "trace-grad-only": (made(S, "DECOY grad-only", "loss", "JAX201", "trace-error", expected=TBCE),
                        "not reproduced", None),
    "trace-numpy": (made(S, "DECOY numpy", "fill", "JAX301", "trace-error", expected="TypeError"),
                    "not reproduced", None),
    "compile-last-epoch": (made(S, "DECOY last-epoch", "train", "JAX402", "recompile"),
                           "not reproduced", "compile-count"),
    "compile-fresh-real": (made(S, "REAL fresh", "train_all", "JAX402", "recompile"),
                           "confirmed", "compile-count"),
    "leak-once": (made(S, "DECOY once", "counted", "JAX102", "leak", global_name="CALLS"),
                  "not reproduced", None),
    "draws-keys": (made(S, "DECOY keys", "two_draws", "JAX501", "prng",
                        previous_line=line_of(S, "first draw")), "not reproduced", None),
    "timing-blocked": (made(S, "DECOY blocked", None, "JAX601", "timing"), "not reproduced", "timing"),
    "unrolled-short": (made(S, "DECOY short", "short_loop", "JAX407"), "not reproduced",
                       "unrolled-loop"),
    # A shorter loop confirms by the rule's size in jaxpr equations, read from a trace that ran
    # the loop as often as the program's own trace did.
    "unrolled-cheap": (made(U, "DECOY cheap-loop", "cheap_loop", "JAX407"), "not reproduced",
                       "unrolled-loop"),
    "unrolled-sized": (made(U, "DECOY sized-loop", "sized_loop", "JAX407"), "not reproduced",
                       "unrolled-loop"),
    "unrolled-heavy": (made(U, "REAL heavy-loop", "heavy_loop", "JAX407"), "confirmed",
                       "unrolled-loop"),
    "api-tree": (made(S, "DECOY tree", None, "JAX901", "removed-api", removed="jax.tree_map"),
                 "not reproduced", "api"),
    # A removed name confirms only where the program would evaluate it, never by getattr alone.
    "api-annotation": (made(G, "DECOY annotation", "sample", "JAX904", "removed-api",
                            removed="jax.numpy.DeviceArray"), "not reproduced", "api"),
    "api-local-annotation": (made(G, "DECOY local annotation", "sample", "JAX904", "removed-api",
                                  removed="jax.numpy.DeviceArray"), "not reproduced", "api"),
    "api-except-fallback": (made(G, "DECOY fallback", None, "JAX908", "removed-api",
                                 removed="jax.lib.xla_bridge.get_backend"), "not reproduced", "api"),
    "api-hasattr-guard": (made(G, "DECOY hasattr", None, "JAX908", "removed-api",
                               removed="jax.device_put_replicated"), "not reproduced", "api"),
    "api-evaluated": (made(G, "REAL removed", "old_tree", "JAX901", "removed-api",
                           removed="jax.tree_map"), "confirmed", "api"),
    # Invented arrays written into: the program may pass Refs, so nothing it does is shown.
    "write-invented-ref": (made(K, "DECOY ref write", "add_one_kernel", "JAX301", "trace-error",
                                expected="TypeError"), "could not run", None),
    "noqa-other-tool": (made(S, "DECOY noqa", None, "JAX100"), "not reproduced", "noqa"),
    "index-in-bounds": (made(S, "DECOY index", None, "JAX703"), "not reproduced", "numerics"),
    # An index array's indices are bounded by the axis it indexes (take without `axis`: the
    # flattened size), never by the first axis alone.
    "index-array-axis": (made(S, "DECOY index-axis", None, "JAX703"), "not reproduced", "numerics"),
    "index-take-flat": (made(S, "DECOY index-flat", None, "JAX703"), "not reproduced", "numerics"),
    "index-array-real": (made(S, "REAL index-array", None, "JAX703"), "confirmed", "numerics"),
    "x64-enabled": (made(X64, "DECOY x64", None, "JAX702"), "not reproduced", "numerics"),
    # The program's own jitted call, its own floats: the float32 result is what the call returned.
    "clock-real": (made(C, "REAL clock", None, "JAX702", clock="time.time", callee="since"),
                   "confirmed", "numerics"),
    "clock-since-start": (made(C, "DECOY clock", None, "JAX702", clock="time.time", callee="since"),
                          "not reproduced", "numerics"),
}


@pytest.fixture(scope="module")
def verdicts():
    return verdicts_by_name({n: CASES_BY_NAME[n][0] for n in CASES_BY_NAME})


@pytest.mark.parametrize("name", sorted(CASES_BY_NAME))
def test_verdict(verdicts, name):
    v = verdicts[name]
    _, want, record = CASES_BY_NAME[name]
    if want == "not reproduced" and v["verdict"] == "could not run":
        # A loaded machine may stop a decoy on its time limit: never "confirmed" is the claim.
        assert v["record"]["why"] == "time", v
        return
    assert v["verdict"] == want, v
    if record is not None:
        assert v["record"]["kind"] == record, v
    if want != "could not run":  # what ran is said in a typed record, whatever the verdict
        assert v["record"]["kind"] not in ("note", "could-not-run"), v
    assert v["evidence"], v


def test_verdicts_name_their_platform(verdicts):
    import jax

    for name, v in verdicts.items():
        assert v["platform"]["backend"] == jax.default_backend(), (name, v)
        assert v["platform"]["device_kind"], (name, v)
