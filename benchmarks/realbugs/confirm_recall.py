"""Confirm mode on the real-bug corpus: of the reported bugs jaxlint finds, which does
`--confirm` show under real JAX?

A case counts when jaxlint finds it (recall.py's rule: an expected code on the expected
line, +-1). Each found case is then run alone with `python -m jaxlint --confirm` (the CPU,
a time limit per case), and its verdict is the best one among its expected findings there:
confirmed, then not reproduced, then could not run. The confirmed share is printed per
family, with every found-but-not-confirmed case, its verdict and the reason confirm gave.

    python benchmarks/realbugs/confirm_recall.py                     # every found case
    python benchmarks/realbugs/confirm_recall.py cases/jax_issue_3740.py
    python benchmarks/realbugs/confirm_recall.py --jobs 2 --timeout 120
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall import CASES, HERE, LINE_SLACK, is_found, load_case, load_cases, run_jaxlint  # noqa: E402

# Best first: a case shows its most telling expected finding.
VERDICT_ORDER = ("confirmed", "not reproduced", "could not run")


def is_expected(case, item):
    row = (item.get("location") or {}).get("row")
    return item["code"] in case.expect and (
        case.line is None or (row is not None and abs(row - case.line) <= LINE_SLACK))


def confirm_case(case, root, timeout):
    """(verdict, reason) for a found case, from one `jaxlint --confirm` run on it alone."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "jaxlint.toml"
        config.write_text("[tool.jaxlint]\n")
        env = dict(os.environ, PYTHONPATH=str(root), JAX_PLATFORMS="cpu")
        command = [sys.executable, "-m", "jaxlint", "--no-cache", "--confirm", "--device", "cpu",
                   "--confirm-timeout", str(timeout), "--output-format", "json",
                   "--select", "JAX", "--config", str(config), "--exit-zero", str(case.path)]
        try:
            result = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True,
                                    timeout=timeout + 120)
        except subprocess.TimeoutExpired:
            return "could not run", f"jaxlint --confirm ran past {timeout + 120:g} s"
    if result.returncode != 0:
        return "could not run", f"jaxlint failed ({result.returncode}): {result.stderr[-300:]}"
    verdicts = []
    for item in json.loads(result.stdout):
        if is_expected(case, item):
            confirm = item.get("confirm") or {}
            verdict = confirm.get("verdict", "could not run")
            reason = confirm.get("summary") or confirm.get("evidence") or ""
            verdicts.append((VERDICT_ORDER.index(verdict) if verdict in VERDICT_ORDER
                             else len(VERDICT_ORDER), verdict, f"{item['code']}: {reason}"))
    if not verdicts:
        return "could not run", "the expected finding is absent from the --confirm run"
    _, verdict, reason = min(verdicts)
    return verdict, reason


def report(results, title):
    by_family = defaultdict(list)
    for case, verdict, reason in results:
        by_family[case.family].append((case, verdict, reason))
    print(f"## {title}")
    print("| family | found | confirmed | not reproduced | could not run | confirmed share |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = sorted(by_family.items()) + [("all", [row for group in by_family.values() for row in group])]
    for family, group in rows:
        counts = {verdict: sum(1 for _, v, _ in group if v == verdict) for verdict in VERDICT_ORDER}
        print(f"| {family} | {len(group)} | {counts['confirmed']} | {counts['not reproduced']} "
              f"| {counts['could not run']} | {counts['confirmed'] / len(group):.2f} |")
    misses = [row for row in results if row[1] != "confirmed"]
    if misses:
        print("\nfound but not confirmed:")
        for case, verdict, reason in sorted(misses, key=lambda row: (row[0].family, row[0].name)):
            print(f"- {case.name} ({','.join(case.expect)}): {verdict}: {reason}")
    print()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jaxlint-root", default=str(HERE.parents[1]),
                        help="the jaxlint checkout to measure (default: this one)")
    parser.add_argument("--cases", default=str(CASES), help="the folder of cases")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="--confirm-timeout per case, in seconds (default 60)")
    parser.add_argument("--jobs", type=int, default=1, help="cases confirmed at once (default 1)")
    parser.add_argument("cases_named", nargs="*", metavar="CASE", help="only these case files")
    args = parser.parse_args(argv)
    cases = ([load_case(Path(name).resolve()) for name in args.cases_named] if args.cases_named
             else load_cases(args.cases))
    root = Path(args.jaxlint_root).resolve()
    findings = run_jaxlint([case.path for case in cases], root)
    found = [case for case in cases if is_found(case, findings)]
    if not found:
        raise SystemExit("no found cases")
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        verdicts = list(pool.map(lambda case: confirm_case(case, root, args.timeout), found))
    results = [(case, verdict, reason) for case, (verdict, reason) in zip(found, verdicts)]
    report(results, f"confirm on {len(found)} found cases of {len(cases)} (jaxlint at {root})")
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"{time.monotonic() - start:.0f} s wall, --timeout {args.timeout:g}, --jobs {args.jobs}; "
          f"uptime: {load}")


if __name__ == "__main__":
    main()
