"""Lint time and peak memory of modules that are mostly data, with a real bug below it.

Usage: python benchmarks/bench_data_module.py [--keep DIR] [--only nested|flat]

Two generated modules, each ending with a jitted function that has a JAX201 bug:

- nested: a 100,000-row nested list literal over 100,000 lines (about 4.6 MB);
- flat: a 2,000,000-element list of integers on one line (about 4 MB).

Each is linted by `python -m jaxlint check --no-cache` in a child process, as a user
runs it. Prints the wall time, the peak resident memory of the largest process of that
run (the command or its worker), and whether the JAX201 finding below the data is kept.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

BUG = ("\n\nimport jax\n\n\n@jax.jit\ndef step(x):\n"
       "    if x.sum() > 0:  # JAX201: `if` on a traced value\n"
       "        return x\n    return -x\n")


def nested_module(rows: int = 100_000) -> str:
    body = "".join(f"    [{i}, {i * 0.5}, 'r{i % 97}', None, ({i % 7}, -{i % 3})],\n" for i in range(rows))
    return f'"""Generated table."""\n\nTABLE = [\n{body}]\n' + BUG


def flat_module(n: int = 2_000_000) -> str:
    return "VALUES = [" + ",".join(str(i % 10) for i in range(n)) + "]\n" + BUG


def bug_line(text: str) -> int:
    return text[: text.index("    if x.sum()")].count("\n") + 1


def measure(path: str, expected_line: int) -> dict:
    """One `jaxlint check` of `path` in a fresh child; its time, peak memory and findings."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "check", "--no-cache", "--output-format",
                                 "json", path], stdout=out, stderr=err, env=env, cwd=os.path.dirname(path))
        # wait4's peak is the largest of the command and the processes it reaped (its worker).
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    try:
        rows = json.loads(stdout or "[]")
    except json.JSONDecodeError:
        rows = []
    kept = any(r.get("code") == "JAX201" and r.get("location", {}).get("row") == expected_line for r in rows)
    other = [f"{r.get('code')}: {r.get('message')}" for r in rows if r.get("code") != "JAX201"]
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024, "kept": kept, "other": other,
            "stderr": stderr.strip().splitlines()[-1:] if proc.returncode not in (0, 1) else []}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep", default=None, help="write the modules into this folder and keep them")
    ap.add_argument("--only", choices=("nested", "flat"), default=None)
    args = ap.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="jaxlint-data-")
    os.makedirs(folder, exist_ok=True)
    cases = {"nested": nested_module, "flat": flat_module}
    for name in ("nested", "flat") if args.only is None else (args.only,):
        text = cases[name]()
        path = os.path.join(folder, f"data_{name}.py")
        with open(path, "w") as fh:
            fh.write(text)
        r = measure(path, bug_line(text))
        print(f"{name}: {len(text) / 1e6:.1f} MB, {text.count(chr(10)):,} lines: {r['wall']:.1f} s ({r['cpu']:.1f} s CPU; load average "
              f"{os.getloadavg()[0]:.1f}), "
              f"peak memory {r['peak_mib']:,.0f} MiB, JAX201 below the data {'kept' if r['kept'] else 'LOST'}"
              + (f"; also {r['other']}" if r["other"] else "") + (f"; {r['stderr']}" if r["stderr"] else ""))
        if args.keep is None:
            os.unlink(path)
    if args.keep is None:
        os.rmdir(folder)


if __name__ == "__main__":
    main()
