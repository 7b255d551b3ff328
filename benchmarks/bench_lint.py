"""Lint speed against a bare libcst parse of the same files, in the same run.

Usage: python benchmarks/bench_lint.py [CORPUS_DIR] [--jobs N]

The corpus is real JAX code: `pip download --no-deps flax optax equinox dm-haiku chex`
and unzip the wheels into one folder (default /tmp/corpus). Never commit it.
Prints lines per second for jaxlint (all rules, cold: no cache, both cores) and for a
bare `libcst.parse_module` of every file (one process), their ratios of wall and CPU
time (the issue's goals: at most 1.2x and 1.6x), and the peak memory of the parent and of
the largest worker.
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import libcst  # noqa: E402

from jaxlint.config import Settings  # noqa: E402
from jaxlint.rules import all_rules  # noqa: E402
from jaxlint.runner import lint_paths  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="?", default="/tmp/corpus")
    ap.add_argument("--jobs", type=int, default=None)
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.corpus, "**", "*.py"), recursive=True))
    if not files:
        sys.exit(f"no .py files under {args.corpus}: see the docstring for how to make the corpus")
    texts = {}
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            texts[f] = fh.read()
    lines = sum(t.count("\n") + 1 for t in texts.values())
    mentions = sum(1 for t in texts.values() if "jax" in t)

    t0, c0 = time.perf_counter(), _cpu()
    for t in texts.values():
        libcst.parse_module(t)
    bare, bare_cpu = time.perf_counter() - t0, _cpu() - c0

    all_rules()
    settings = Settings(select=("JAX",))
    t0, c0 = time.perf_counter(), _cpu()
    results = lint_paths(files, settings, args.jobs)
    ours, ours_cpu = time.perf_counter() - t0, _cpu() - c0
    findings = sum(len(r.findings) for r in results)
    diags = sum(len(r.diagnostics) for r in results)

    print(f"corpus: {len(files)} files, {lines} lines ({mentions} files mention jax)")
    print(f"bare libcst.parse_module (1 process): {bare:.2f} s, {lines / bare:,.0f} lines/s")
    print(f"jaxlint, all rules, cold ({args.jobs or 'auto'} jobs): {ours:.2f} s, {lines / ours:,.0f} lines/s, "
          f"{findings} findings, {diags} diagnostics")
    print(f"ratio jaxlint / bare parse: {ours / bare:.2f}x wall, {ours_cpu / bare_cpu:.2f}x CPU "
          f"({ours_cpu:.2f} s against {bare_cpu:.2f} s; load average {os.getloadavg()[0]:.1f})")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak memory: this process {own:,.0f} MiB (bare parses included), largest worker {kids:,.0f} MiB")


def _cpu() -> float:
    """CPU seconds of this process and of its children reaped so far (the workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
