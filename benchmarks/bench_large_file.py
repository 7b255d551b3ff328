"""Lint time and peak memory of one generated 100,000-line file.

Usage: python benchmarks/bench_large_file.py [--lines N] [--dense] [--cli] [--halves auto|always|never]

The file repeats a small jitted function and a caller. With --dense every
function has a finding (6,667 findings at 100k lines: the worst case for
positions, which are computed per statement that has one); without it, one
function in a hundred does. Prints wall time per phase of one `lint_text` in
this process, the CPU time of this process and its helper (which, when a core is
free, analyses half of the file's functions: jaxlint/parallel.py), and their
peak memory. With --cli, times instead what a user waits
for: `python -m jaxlint check --no-cache` on the file, start-up included (wall,
CPU of every process, and the peak memory of the largest one).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from jaxlint import linter, parallel, processes, source  # noqa: E402
from jaxlint.config import Settings  # noqa: E402

BAD = "    if b['w'].sum() > 0:\n        a = a + 1\n"
FINE = "    if b['w'].shape[0] > 0:\n        a = a + 1\n"


def generate(n_lines: int, dense: bool) -> str:
    out = ["import jax", "import jax.numpy as jnp", "from jax import lax", ""]
    lines = 4
    i = 0
    while lines < n_lines:
        body = BAD if dense or i % 100 == 0 else FINE
        block = (f"@jax.jit\ndef f{i}(x, y, key):\n    a = jnp.sin(x) + y * {i}\n"
                 f"    b = {{'w': a, 'b': y}}\n{body}    for j in range(3):\n        a = a * j\n"
                 f"    k1 = jax.random.normal(key, (3,))\n    n = x.shape[0]\n    return a, b, k1, n\n\n"
                 f"def g{i}(z):\n    return f{i}(z, z, None)\n\n")
        out.append(block)
        lines += block.count("\n")
        i += 1
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--dense", action="store_true")
    ap.add_argument("--cli", action="store_true", help="time `jaxlint check` on the file instead")
    ap.add_argument("--halves", choices=("auto", "always", "never"), default="auto",
                    help="analyse in two halves when a core is free (auto), or regardless of the load, "
                         "or never (to compare CPU seconds on a loaded machine)")
    args = ap.parse_args()
    text = generate(args.lines, args.dense)
    if args.cli:
        return run_cli(text)
    if args.halves != "auto":
        parallel._core_free = lambda: args.halves == "always"
        source._use_helper = lambda pieces: False  # nor the parse's own helper
    phases = {}

    def timed(name, fn):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                phases[name] = phases.get(name, 0.0) + time.perf_counter() - t
        return wrapper

    source.vet = timed("Python's parse (the vetting)", source.vet)
    parallel._halves = timed("split into two halves", parallel._halves)
    source._parse_chunked = timed("libcst parse", source._parse_chunked)
    linter._to_findings = timed("positions and findings", linter._to_findings)
    processes.Helper.result = timed("waiting for the helper", processes.Helper.result)
    t, cpu = time.perf_counter(), _cpu()
    # In this process (lint_text would fork a guarded child, whose phases are not seen here).
    result = linter._lint_text_here(text, "generated.py", Settings(), None, True, None)
    total, cpu = time.perf_counter() - t, _cpu() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    helper = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{text.count(chr(10)):,} lines, {len(result.findings):,} findings, "
          f"{len(result.diagnostics)} diagnostics; "
          + ("in two halves, one in a helper process" if "waiting for the helper" in phases
             else "in one process (no core free, or the parse's helper only)"))
    for name, s in phases.items():
        print(f"  {name:<28} {s:6.1f} s")
    print(f"  {'model and rules, the rest':<28} {total - sum(phases.values()):6.1f} s")
    print(f"total {total:.1f} s ({cpu:.1f} s CPU, the helper process included; load average {os.getloadavg()[0]:.1f}), "
          f"peak memory {peak:,.0f} MiB (the helper process: {helper:,.0f} MiB)")


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def run_cli(text: str) -> None:
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    env = dict(os.environ, PYTHONPATH=root)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "generated.py")
        with open(path, "w") as fh:
            fh.write(text)
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--no-cache", "--output-format",
                               "json", path], env=env, capture_output=True, text=True)
        total = time.perf_counter() - t
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = kids.ru_utime + kids.ru_stime
    try:
        found = len(json.loads(proc.stdout))
    except ValueError:
        found = "no"
    print(f"jaxlint check, {text.count(chr(10)):,} lines: {found} findings, exit code {proc.returncode}")
    for line in proc.stderr.splitlines()[-3:]:  # a diagnostic (the 30 s limit of a file, say)
        print("  " + line)
    print(f"total {total:.1f} s wall ({cpu:.1f} s CPU, all processes; load average "
          f"{os.getloadavg()[0]:.1f}), peak memory of the largest process {kids.ru_maxrss / 1024:,.0f} MiB")


if __name__ == "__main__":
    main()
