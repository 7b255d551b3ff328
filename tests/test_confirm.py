"""Confirm mode under real JAX on the CPU.

One confirm run is shared by most assertions (module-scoped fixtures), because a worker
imports jax once and serves every file: the cases live in tests/confirm_cases/.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.config import Settings
from jaxlint.finding import Finding
from jaxlint.linter import lint_file

pytest.importorskip("jax")

CASES = Path(__file__).parent / "confirm_cases"
ROOT = Path(__file__).resolve().parent.parent


def case(name: str) -> str:
    return str(CASES / name)


def made(path: str, line: int, function: str, function_line: int, **confirm) -> Finding:
    """A finding built by hand: the not-reproduced cases are lines no rule should flag."""
    return Finding(path=path, line=line, col=1, end_line=line, end_col=1, code="JAX999",
                   message="", function=function, function_line=function_line, confirm=confirm)


def line_of(path: str, text: str) -> int:
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        if text in line:
            return i
    raise AssertionError(f"{text!r} not in {path}")


NR = case("not_reproduced.py")
HAND_MADE = [
    made(NR, line_of(NR, "jnp.where(x > 0"), "safe", line_of(NR, "def safe"),
         kind="trace-error", expected="TracerBoolConversionError"),
    made(NR, line_of(NR, "jax.debug.print"), "debug_ok", line_of(NR, "def debug_ok"), kind="print"),
    made(NR, line_of(NR, "0 * OFFSET"), "offset_unused", line_of(NR, "def offset_unused"),
         kind="stale-global", global_name="OFFSET"),
    made(NR, line_of(NR, "SEEN.append"), "shapes_only", line_of(NR, "def shapes_only"),
         kind="leak", global_name="SEEN"),
    made(NR, line_of(NR, "vals[i] * x"), "sum_list.<locals>.body", line_of(NR, "def body"),
         kind="iterator"),
    made(NR, line_of(NR, "scale_jit(x, 2.0)"), "same_static", line_of(NR, "def same_static"),
         kind="recompile", fun_name="jit(scale)"),
    made(NR, line_of(NR, "normal(k2"), "split_ok", line_of(NR, "def split_ok"), kind="prng"),
    made(NR, line_of(NR, "normal(k2"), "split_ok", line_of(NR, "def split_ok"), kind="unknown"),
    made(NR, line_of(NR, "normal(k2"), "nowhere", 1, kind="trace-error", expected="TypeError"),
]
RC = case("recompile.py")
HAND_MADE += [
    # 9: a static value that changes, though two of its values were compiled earlier.
    made(RC, line_of(RC, "x = scale_jit(x, 2 ** n)"), "warm_then_vary",
         line_of(RC, "def warm_then_vary"), kind="recompile", fun_name="jit(scale)"),
    # 10: the call at the line only hits a cache warmed earlier: zero compiles prove nothing.
    made(RC, line_of(RC, "x = scale_jit(x, 2)  #"), "warm_only", line_of(RC, "def warm_only"),
         kind="recompile", fun_name="jit(scale)"),
    # 11: a name the installed jax still has.
    made(NR, line_of(NR, "normal(k2"), "split_ok", line_of(NR, "def split_ok"),
         kind="removed-api", removed="jax.tree.map"),
    # 12: timings are not re-measured.
    made(NR, line_of(NR, "normal(k2"), "split_ok", line_of(NR, "def split_ok"), kind="timing"),
]
LINTED = ["trace_errors.py", "impurity.py", "recompile.py", "prng.py", "could_not_run.py", "removed.py",
          "import_fails.py", "exits.py", "segfault.py", "chatty.py", "pkg/sub/model.py"]


@pytest.fixture(scope="module")
def confirmed():
    from jaxlint.confirm import confirm_findings

    findings = [f for name in LINTED
                for f in lint_file(case(name), Settings(select=("JAX",))).findings]
    out, device = confirm_findings(findings + HAND_MADE, device="cpu", timeout=30.0)
    assert device == "cpu"
    return out


def verdicts(out, name: str) -> dict[int, dict]:
    """Verdicts for one case file, by line."""
    return {f.line: f.verdict for f in out if f.path == case(name)}


def test_every_finding_gets_a_full_verdict(confirmed):
    assert confirmed
    for f in confirmed:
        v = f.verdict
        assert v["verdict"] in ("confirmed", "not reproduced", "could not run"), v
        assert v["summary"] and v["device"] == "cpu" and "shapes" in v


@pytest.mark.parametrize("text, cls", [
    ("if x > 0:", "TracerBoolConversionError"),
    ("for i in range(n):", "TracerIntegerConversionError"),
    ("np.asarray(x)", "TracerArrayConversionError"),
    ("x[x < 0]", "NonConcreteBooleanIndexError"),
    ("jnp.zeros(n)", "TypeError"),
    ("if x.sum() > 0:", "TracerBoolConversionError"),  # a method, jitted with static self
    ("        if x > 0:", "TracerBoolConversionError"),  # a scan body inside a jitted function
    ("if loss > 1.0:", "TracerBoolConversionError"),  # a pytree parameter
])
def test_trace_errors_confirmed_at_their_line(confirmed, text, cls):
    path = case("trace_errors.py")
    line = line_of(path, text)
    v = verdicts(confirmed, "trace_errors.py")[line]
    assert v["verdict"] == "confirmed", v
    assert v["summary"] == f"{cls} at line {line}"
    assert v["evidence"].startswith(cls)
    assert v["shapes"]


def test_trace_error_reports_int32_for_sizes(confirmed):
    path = case("trace_errors.py")
    v = verdicts(confirmed, "trace_errors.py")[line_of(path, "jnp.zeros(n)")]
    assert v["shapes"] == "n: int32[]"


@pytest.mark.parametrize("text, summary_part", [
    # The program never calls `noisy`: one call, whose print shows a tracer.
    ('print("x is", x)', "printed a tracer, not a value"),
    ("return x * SCALE", "stale SCALE"),
    ("LEAKED.append(y)", "tracer leaked into LEAKED[0]"),
    ("next(it)", "jit returned"),
])
def test_impurity_confirmed(confirmed, text, summary_part):
    path = case("impurity.py")
    v = verdicts(confirmed, "impurity.py")[line_of(path, text)]
    assert v["verdict"] == "confirmed", v
    assert summary_part in v["summary"]


def test_print_evidence_shows_the_tracer(confirmed):
    path = case("impurity.py")
    v = verdicts(confirmed, "impurity.py")[line_of(path, 'print("x is", x)')]
    assert "Tracer" in v["evidence"]


def test_recompile_and_overhead(confirmed):
    path = case("recompile.py")
    got = verdicts(confirmed, "recompile.py")
    fresh = got[line_of(path, "jax.jit(lambda v: v + 1)")]
    # The program's own loop (3 epochs at import) made 3 jitted lambdas of one computation.
    assert fresh["verdict"] == "confirmed" and fresh["summary"] == "3 compiles of the same <lambda>"
    assert fresh["record"]["kind"] == "compile-count" and fresh["record"]["compiles"] == 3
    rewrap = got[line_of(path, "jax.jit(g)(x)")]
    # JAX401: one call of the function, as the program calls it, made and called 20 wrappers.
    assert rewrap["verdict"] == "confirmed", rewrap
    assert rewrap["summary"].startswith("jax.jit(...) made and called 20 times")
    assert rewrap["record"]["kind"] == "timing" and " us " in rewrap["evidence"]


def hand_made(confirmed, index: int) -> dict:
    finding = HAND_MADE[index]
    return next(f.verdict for f in confirmed if f.path == finding.path and f.line == finding.line
                and f.confirm == finding.confirm)


def test_recompile_counts_cache_keys_at_the_line_when_the_cache_is_warm(confirmed):
    v = hand_made(confirmed, 9)
    assert v["verdict"] == "confirmed", v
    assert v["summary"] == "3 compiled versions for 3 calls"
    assert "factor=2.0" not in v["evidence"] and "factor=8" in v["evidence"]
    assert "distinct signatures" in v["evidence"]


def test_one_cache_key_at_the_line_is_not_a_recompile(confirmed):
    # The calls at the line all hit a cache warmed earlier: one signature, observed.
    v = hand_made(confirmed, 10)
    assert v["verdict"] == "not reproduced", v
    assert v["summary"] == f"one signature at line {HAND_MADE[10].line}: no recompile"
    assert "1 signature(s)" in v["evidence"]


def test_counter_moves_once_per_trace(confirmed):
    path = case("recompile.py")
    v = verdicts(confirmed, "recompile.py")[line_of(path, "COUNT += 1")]
    # The program's own three calls: COUNT moved at the first (the trace) only.
    assert v["verdict"] == "confirmed", v
    assert v["evidence"].startswith("the program called counted 3 times; `COUNT` went 0 -> 1 -> 1 -> 1")


def test_removed_api_confirmed_by_the_installed_jax(confirmed):
    import jax

    got = verdicts(confirmed, "removed.py")
    path = case("removed.py")
    tree_map = got[line_of(path, "jax.tree_map(")]
    assert tree_map["verdict"] == "confirmed", tree_map
    assert tree_map["summary"] == f"jax {jax.__version__} has no jax.tree_map"
    # The import failed at that very line: the failure is the confirmation, and it is shown.
    assert "importing the file raised AttributeError" in tree_map["evidence"], tree_map
    device_array = got[line_of(path, "jnp.DeviceArray")]
    assert device_array["verdict"] == "confirmed"
    assert "jax.numpy.DeviceArray" in device_array["summary"]
    # 11 is at a line that does not use jax.tree.map: the line is checked before the name.
    still = hand_made(confirmed, 11)
    assert still["verdict"] == "not reproduced" and "does not use jax.tree.map" in still["summary"]


def test_a_timing_finding_at_a_line_that_reads_no_clock(confirmed):
    v = hand_made(confirmed, 12)
    assert v["verdict"] == "not reproduced" and v["summary"] == f"line {HAND_MADE[12].line} reads no clock"


def test_prng_reuse_shows_identical_draws(confirmed):
    path = case("prng.py")
    got = verdicts(confirmed, "prng.py")
    twice = got[line_of(path, "b = jax.random.normal(key")]
    assert twice["verdict"] == "confirmed" and "identical values" in twice["summary"]
    loop = got[line_of(path, "jax.random.uniform(key)")]
    assert loop["verdict"] == "confirmed" and "drew twice" in loop["summary"]


@pytest.mark.parametrize("index, summary_part", [
    (0, "traced without error"),
    (1, "ran on every call"),
    (3, "no tracer leaked"),
    (4, "jit and eager agree"),
    (5, "one signature at line"),
    (6, "the flagged draws used different keys"),
])
def test_not_reproduced_per_family(confirmed, index, summary_part):
    finding = HAND_MADE[index]
    v = next(f.verdict for f in confirmed if f.path == finding.path and f.line == finding.line
             and f.confirm == finding.confirm)
    assert v["verdict"] == "not reproduced", v
    assert summary_part in v["summary"]


def test_a_global_the_program_never_rebinds_is_not_judged(confirmed):
    v = hand_made(confirmed, 2)  # OFFSET: confirm never rebinds it itself
    assert v["verdict"] == "could not run", v
    assert "never called" in v["summary"]


@pytest.mark.parametrize("name, text, summary_part", [
    ("could_not_run.py", "# case: never-ran", "never ran"),
    ("could_not_run.py", "# case: self", "cannot build `self`"),
    ("import_fails.py", "if x > 0", "import failed"),
    ("import_fails.py", "if x > 0", "missing module not_a_module_anywhere_xyz"),  # what is missing
    ("exits.py", "if x > 0", "exited with code 3"),
    ("segfault.py", "if x > 0", "killed by signal 11"),
])
def test_could_not_run_reasons(confirmed, name, text, summary_part):
    v = verdicts(confirmed, name)[line_of(case(name), text)]
    assert v["verdict"] == "could not run", v
    assert summary_part in v["summary"], v


@pytest.mark.parametrize("text, how", [
    # `params: Params`: the NamedTuple is built from its annotated fields.
    ("# case: pytree", "params: Params(...) from its fields"),
    # The factory is called and the function it returns is traced, not the factory.
    ("# case: nested", "returned by factory()"),
])
def test_realistic_arguments_reach_the_line(confirmed, text, how):
    v = verdicts(confirmed, "could_not_run.py")[line_of(case("could_not_run.py"), text)]
    assert v["verdict"] == "confirmed", v
    assert how in v["shapes"] and how in v["evidence"]


def test_could_not_run_for_unknown_kind_and_missing_function(confirmed):
    unknown = next(f.verdict for f in confirmed if f.confirm.get("kind") == "unknown")
    assert unknown["verdict"] == "could not run" and "no confirm recipe" in unknown["summary"]
    missing = next(f.verdict for f in confirmed if f.function == "nowhere")
    assert missing["verdict"] == "could not run" and "not found" in missing["evidence"]


def test_stdout_noise_and_packages_do_not_disturb(confirmed):
    chatty = verdicts(confirmed, "chatty.py")
    assert [v["verdict"] for v in chatty.values()] == ["confirmed"]
    pkg = verdicts(confirmed, "pkg/sub/model.py")  # relative import: imported by dotted name
    assert [v["verdict"] for v in pkg.values()] == ["confirmed"]


def test_hang_is_killed_and_the_next_file_still_runs():
    """In a fresh interpreter, which must not import jax itself."""
    script = f"""
import json, sys
from jaxlint.config import Settings
from jaxlint.linter import lint_file
from jaxlint.confirm import confirm_findings
fs = [f for p in ({case('hangs.py')!r}, {case('chatty.py')!r})
      for f in lint_file(p, Settings(select=("JAX",))).findings]
out, device = confirm_findings(fs, device="cpu", timeout=4.0)
print(json.dumps({{"jax_in_parent": "jax" in sys.modules, "device": device,
                  "verdicts": [[f.path.rsplit("/", 1)[-1], f.verdict] for f in out]}}))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["jax_in_parent"] is False
    assert data["device"] == "cpu"
    (hang_name, hang), (chatty_name, chatty) = data["verdicts"]
    assert hang_name == "hangs.py" and hang["verdict"] == "could not run"
    assert "timed out" in hang["summary"]
    assert chatty_name == "chatty.py" and chatty["verdict"] == "confirmed"


def test_unavailable_without_jax(monkeypatch):
    import jaxlint.confirm as confirm

    monkeypatch.setattr(confirm.importlib.util, "find_spec",
                        lambda name, *a: None if name == "jax" else object())
    with pytest.raises(confirm.ConfirmUnavailable, match=r"pip install 'jaxlint\[confirm\]'"):
        confirm.confirm_findings([made(NR, 1, "safe", 1, kind="print")])


def test_cli_confirm_end_to_end(tmp_path):
    """`jaxlint --confirm` shows the verdict after the message."""
    src = (CASES / "trace_errors.py").read_text()
    target = tmp_path / "one.py"
    target.write_text(src)
    proc = subprocess.run(
        [sys.executable, "-m", "jaxlint", "--confirm", "--device", "cpu", "--select", "JAX201",
         "--output-format", "concise", str(target)],
        capture_output=True, text=True, cwd=ROOT, timeout=180,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "[confirmed: TracerBoolConversionError at line 11]" in proc.stdout, proc.stdout + proc.stderr
