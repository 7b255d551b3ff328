"""Cold run against warm run of the cache, over an unchanged tree.

    python benchmarks/cache_bench.py [PATH] [--repeat N]

Runs the real CLI (`python -m jaxlint --output-format concise PATH`) as a
subprocess, once with an empty cache directory (cold) and then N times over the
unchanged files (warm), and prints both wall times and their ratio. The cache
goes to a temporary folder (JAXLINT_CACHE_DIR), so PATH is never written to.
jaxlint itself runs from a snapshot copy: the cache key covers jaxlint's own
code, so edits to the checkout during the benchmark would otherwise empty it.
Target: warm <= 5% of cold.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def snapshot(into: str) -> str:
    for name in ("jaxlint", "rules"):
        shutil.copytree(os.path.join(REPO, name), os.path.join(into, name),
                        ignore=shutil.ignore_patterns("__pycache__"))
    return into


def run(path: str, cache_dir: str, code_dir: str) -> tuple[float, str]:
    env = dict(os.environ, JAXLINT_CACHE_DIR=cache_dir, PYTHONPATH=code_dir)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "--output-format", "concise",
                           "--exit-zero", "-q", os.path.abspath(path)], env=env, cwd=code_dir,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"jaxlint failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="/tmp/corpus")
    parser.add_argument("--repeat", type=int, default=3, help="warm runs (the best is kept)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jaxlint-cache-bench-") as tmp:
        cache_dir = os.path.join(tmp, "cache")
        code_dir = snapshot(os.path.join(tmp, "code"))
        cold, cold_out = run(args.path, cache_dir, code_dir)
        warm_times = []
        for _ in range(args.repeat):
            t, warm_out = run(args.path, cache_dir, code_dir)
            if warm_out != cold_out:
                raise SystemExit("the warm run's findings differ from the cold run's")
            warm_times.append(t)
    warm = min(warm_times)
    n = len(cold_out.splitlines())
    print(f"path: {args.path} ({n} findings)")
    print(f"cold run: {cold:.2f} s")
    print(f"warm run: {warm:.3f} s (best of {args.repeat}: {', '.join(f'{t:.3f}' for t in warm_times)})")
    print(f"warm / cold: {100 * warm / cold:.1f}% (target <= 5%)")


if __name__ == "__main__":
    main()
