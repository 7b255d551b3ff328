"""Confirm 20 flagged files; the target is 2 x (jax import + 1 s) of wall time.

    python benchmarks/confirm_bench.py [--device cpu|auto] [--files 20] [--repeat 3]
    python benchmarks/confirm_bench.py --pages   # every rule page's examples, time per file

Also reports the confirm time per file with the jax import amortised: the run over N files
minus the run over one file, divided by N - 1 (the worker's start, jax import included, is
paid once per run). Medians of --repeat runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jaxlint.config import Settings  # noqa: E402
from jaxlint.confirm import confirm_findings  # noqa: E402
from jaxlint.linter import lint_file  # noqa: E402

# A few pitfalls per file, of different kinds, so the run is not one recipe twenty times.
TEMPLATE = '''
import jax
import jax.numpy as jnp
import numpy as np

SCALE = 2.0


@jax.jit
def relu_{i}(x):
    if x > 0:
        return x
    return 0.0 * x


@jax.jit
def count_{i}(x, n):
    for i in range(n):
        x = x + i
    return x


@jax.jit
def to_numpy_{i}(x):
    return np.asarray(x) + 1


@jax.jit
def scaled_{i}(x):
    return x * SCALE
'''


def jax_import_seconds(env) -> float:
    code = "import time; t = time.perf_counter(); import jax; jax.devices(); print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    return float(out.stdout.strip().splitlines()[-1])


def _confirm(paths, device):
    findings = [f for p in paths for f in lint_file(p, Settings(select=("JAX",))).findings]
    start = time.perf_counter()
    out, dev = confirm_findings(findings, device=device, timeout=60.0)
    return time.perf_counter() - start, out, dev, findings


def pages(device: str) -> int:
    """Confirm the rule pages' examples (tests/confirm_pages.py) in one run: wall time, and the
    time per file the worker measured (fork, import, recipes)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from confirm_pages import page_cases

    with tempfile.TemporaryDirectory(prefix="jaxlint-bench-") as tmp:
        cases = page_cases(tmp, limit=3)
        findings = [f for c in cases for f in c.findings]
        times = os.path.join(tmp, "times.txt")
        os.environ["JAXLINT_CONFIRM_TIMES"] = times
        start = time.perf_counter()
        out, dev = confirm_findings(findings, device=device, timeout=60.0)
        wall = time.perf_counter() - start
        per_file = sorted(float(line.split()[0]) for line in Path(times).read_text().splitlines())
    counts = Counter(f.verdict["verdict"] for f in out)
    print(f"device: {dev}; files: {len(cases)}, findings: {len(findings)} ({dict(counts)})")
    print(f"confirm wall time: {wall:.1f} s; per file: median {per_file[len(per_file) // 2] * 1000:.0f} ms, "
          f"90th percentile {per_file[int(len(per_file) * 0.9)] * 1000:.0f} ms, "
          f"max {per_file[-1] * 1000:.0f} ms")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pages", action="store_true")
    args = parser.parse_args()
    if args.pages:
        return pages(args.device)
    env = dict(os.environ)
    if args.device == "cpu":
        env["JAX_PLATFORMS"] = "cpu"
    walls, ones = [], []
    with tempfile.TemporaryDirectory(prefix="jaxlint-bench-") as tmp:
        paths = []
        for i in range(args.files):
            p = Path(tmp) / f"flagged_{i}.py"
            p.write_text(TEMPLATE.format(i=i))
            paths.append(str(p))
        import_s = jax_import_seconds(env)
        for _ in range(args.repeat):
            one, _, _, _ = _confirm(paths[:1], args.device)
            wall, out, device, findings = _confirm(paths, args.device)
            ones.append(one)
            walls.append(wall)
    wall, one = sorted(walls)[len(walls) // 2], sorted(ones)[len(ones) // 2]
    per_file = (wall - one) / max(1, args.files - 1)
    target = 2 * (import_s + 1.0)
    counts = Counter(f.verdict["verdict"] for f in out)
    print(f"device: {device}")
    print(f"files: {len(paths)}, findings: {len(findings)} ({dict(counts)})")
    print(f"jax import: {import_s:.2f} s")
    print(f"confirm wall time: {wall:.2f} s ({wall / max(1, len(findings)) * 1000:.0f} ms per finding)"
          f", one file: {one:.2f} s (medians of {args.repeat})")
    print(f"per file, jax import amortised: {per_file * 1000:.0f} ms")
    print(f"target 2 x (import + 1 s): {target:.2f} s -> {'PASS' if wall <= target else 'FAIL'}")
    return 0 if wall <= target else 1


if __name__ == "__main__":
    sys.exit(main())
