#!/usr/bin/env python3
"""Confirm mode on the ledger: run `--confirm` on every judged file of the corpus and join the
verdicts with judged.tsv.

    python benchmarks/realworld/fetch_corpus.py                       # the corpus first
    python benchmarks/realworld/confirm_ledger.py --jobs 2 --timeout 30 --save /tmp/confirm_ledger.json
    python benchmarks/realworld/confirm_ledger.py --load /tmp/confirm_ledger.json   # report again
    python benchmarks/realworld/confirm_ledger.py --repo dfm/tinygp --show F       # one repo, the F rows
    python benchmarks/realworld/confirm_ledger.py --codes JAX101,JAX104 --jaxlint-root /tmp/old

Each judged file is linted with the default rules (as ledger.py does) and its findings are
joined to judged.tsv the same way. The files are split into --jobs groups; each group is one
confirm run (one worker, jax imported once, every file in a fresh fork with --timeout seconds).
Most corpus files import packages this machine lacks: they are "could not run", counted by
reason. Printed per family: T confirmed / T that ran (verdict other than could not run) /
T judged, and F confirmed / F that ran. A confirmed F is a recipe bug.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
# --jaxlint-root DIR measures another checkout (a commit extracted with `git archive`).
ROOT = Path(sys.argv[sys.argv.index("--jaxlint-root") + 1]).resolve() \
    if "--jaxlint-root" in sys.argv[:-1] else HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import ledger  # noqa: E402

CONFIRMED, NOT_REPRODUCED, COULD_NOT_RUN = "confirmed", "not reproduced", "could not run"


def judged_files(judged: list[dict], sets: dict[str, str], corpus: Path, repo: str | None,
                 codes: set[str] | None = None):
    """(repo, path, file on disk) for every file with a judged finding, in a stable order."""
    seen = sorted({(r["repo"], r["path"]) for r in judged if (repo is None or r["repo"] == repo)
                   and (codes is None or r["code"] in codes)})
    out = []
    for rep, path in seen:
        full = corpus / sets.get(rep, "user") / rep.replace("/", "__") / path
        if full.is_file():
            out.append((rep, path, str(full)))
    return out


def lint(files) -> list[tuple[dict, object]]:
    """(ledger row, Finding) for every default-rule finding in the files."""
    from jaxlint.config import Settings
    from jaxlint.linter import lint_file

    settings = Settings()
    out = []
    for rep, path, full in files:
        for f in lint_file(full, settings).findings:
            if not f.code.startswith(("JAX", "E999")):
                continue
            line = f"{f.cell}:{f.line}" if f.cell is not None else str(f.line)
            out.append(({"repo": rep, "path": path, "code": f.code, "line": line,
                         "snippet": ledger.source_line(Path(full), f.line, f.cell)}, f))
    return out


def _confirm_group(args):
    findings, timeout, times = args
    from jaxlint.confirm import confirm_findings

    os.environ["JAXLINT_CONFIRM_TIMES"] = times
    # The corpus's code writes files (checkpoints, pickles) into its working directory.
    os.chdir(tempfile.mkdtemp(prefix="confirm-ledger-cwd-"))
    out, _ = confirm_findings(findings, device="cpu", timeout=timeout)
    return [f.verdict for f in out]


def confirm(pairs, jobs: int, timeout: float) -> tuple[list[dict], dict[str, float]]:
    """The verdict of each finding, and the worker's seconds per file."""
    by_file = defaultdict(list)
    for i, (_, f) in enumerate(pairs):
        by_file[f.path].append(i)
    # Balance the groups by finding count: files with many findings take longer.
    groups = [[] for _ in range(max(1, jobs))]
    for path in sorted(by_file, key=lambda p: -len(by_file[p])):
        min(groups, key=lambda g: sum(len(by_file[p]) for p in g)).append(path)
    verdicts: list[dict] = [{} for _ in pairs]
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="confirm-ledger-") as tmp:
        tasks, order = [], []
        for k, g in enumerate(groups):
            idx = [i for p in g for i in by_file[p]]
            order.append(idx)
            tasks.append(([pairs[i][1] for i in idx], timeout, os.path.join(tmp, f"times-{k}.txt")))
        with ProcessPoolExecutor(max_workers=len(tasks)) as pool:
            for idx, result in zip(order, pool.map(_confirm_group, tasks)):
                for i, v in zip(idx, result):
                    verdicts[i] = v
        for k in range(len(tasks)):
            p = Path(tmp) / f"times-{k}.txt"
            if p.exists():
                for line in p.read_text().splitlines():
                    secs, path = line.split(" ", 1)
                    seconds[path] = float(secs)
    return verdicts, seconds


def reason(v: dict) -> str:
    """A could-not-run verdict's reason, grouped: the missing package by name, else the summary
    without line numbers and paths."""
    text = f"{v.get('summary', '')} {v.get('evidence', '')}"
    m = re.search(r"No module named '([\w.]+)'", text)
    if m:
        return f"missing module {m.group(1).split('.')[0]}"
    s = v.get("summary", "") or "?"
    s = re.sub(r"\bat \S+:\d+", "at <file>:<line>", s)
    s = re.sub(r"\bline \d+", "line <n>", s)
    s = re.sub(r"\d+(\.\d+)? s\b", "<t> s", s)
    if s.startswith("import failed") and "Error" in text:
        exc = re.search(r"(\w+(?:Error|Exception|Exit))\b", v.get("evidence", "") or "")
        s += f" ({exc.group(1)})" if exc else ""
    return s


def imported(v: dict) -> bool:
    """The file ran: its import neither failed nor ran out of time (a removed API is confirmed
    from the installed jax even where the import failed, so the verdict alone does not say)."""
    s = v.get("summary", "")
    return not ("import failed" in s or s.startswith(("import timed out", "timed out after",
                                                      "the interpreter")))


_FAILED = ("import failed", "earlier cells failed", "import timed out", "timed out after",
           "the interpreter", "cannot compile the file")


def clean_files(rows: list[dict]) -> set[tuple[str, str]]:
    """Files that ran whole: no verdict of theirs tells of a failed import, a failed notebook
    cell, a time limit or a crash."""
    bad = {(r["repo"], r["path"]) for r in rows
           if any(w in f"{r['confirm'].get('summary', '')} {r['confirm'].get('evidence', '')}"
                  for w in _FAILED)}
    return {(r["repo"], r["path"]) for r in rows} - bad


def report(rows: list[dict], show: str | None) -> None:
    clean = clean_files(rows)
    fam = defaultdict(Counter)
    codes = defaultdict(Counter)
    reasons = Counter()
    for r in rows:
        v, verdict = r["verdict"], r["confirm"].get("verdict", "")
        if v not in ("T", "F"):
            continue
        keys = [ledger.family(r["code"]), "all"] + (["all but 9xx"] if r["code"][3:4] != "9" else [])
        for key in keys:
            c = fam[key]
            c[f"{v} judged"] += 1
            c[f"{v} ran"] += verdict != COULD_NOT_RUN
            c[f"{v} confirmed"] += verdict == CONFIRMED
            c[f"{v} clean confirmed"] += verdict == CONFIRMED and (r["repo"], r["path"]) in clean
            c[f"{v} imported"] += imported(r["confirm"])
            c[f"{v} clean"] += (r["repo"], r["path"]) in clean
        codes[r["code"]][f"{v} {verdict}"] += 1
        if verdict == COULD_NOT_RUN:
            reasons[reason(r["confirm"])] += 1
    print("T/F conf: confirmed; ran: a verdict other than could not run; imp: in a file whose "
          "import did not fail outright;\nclean: in a file that ran whole (no failed import or "
          "notebook cell, no time limit); share: T conf in clean files / T clean")
    print(f"{'family':11} {'T conf':>6} {'T ran':>6} {'T imp':>6} {'T clean':>7} {'T all':>6} "
          f"{'share':>6}   {'F conf':>6} {'F ran':>6} {'F imp':>6} {'F all':>6}")
    for k in ledger.FAMILIES + ["all", "all but 9xx"]:
        c = fam.get(k)
        if not c:
            continue
        share = f"{c['T clean confirmed'] / c['T clean']:.2f}" if c["T clean"] else "-"
        print(f"{k:11} {c['T confirmed']:6} {c['T ran']:6} {c['T imported']:6} {c['T clean']:7} "
              f"{c['T judged']:6} "
              f"{share:>6}   {c['F confirmed']:6} {c['F ran']:6} {c['F imported']:6} "
              f"{c['F judged']:6}")
    print("\nper rule (T|F: confirmed / not reproduced / could not run):")
    for code, c in sorted(codes.items()):
        print(f"  {code}: T {c['T confirmed']}/{c['T not reproduced']}/{c['T could not run']}"
              f"  F {c['F confirmed']}/{c['F not reproduced']}/{c['F could not run']}")
    print("\ncould not run, by reason:")
    for why, n in reasons.most_common():
        print(f"  {n:5}  {why}")
    if show:
        want = {"F": lambda r: r["verdict"] == "F" and r["confirm"].get("verdict") == CONFIRMED,
                "T": lambda r: r["verdict"] == "T" and r["confirm"].get("verdict") == NOT_REPRODUCED,
                "Tcnr": lambda r: r["verdict"] == "T" and r["confirm"].get("verdict") == COULD_NOT_RUN
                and imported(r["confirm"]),
                "Tclean": lambda r: r["verdict"] == "T" and r["confirm"].get("verdict") != CONFIRMED
                and (r["repo"], r["path"]) in clean}[show]
        print(f"\n== rows: {show} ==")
        for r in rows:
            if want(r):
                print(f"{r['repo']}:{r['path']}:{r['line']} {r['code']} [{r['confirm'].get('verdict')}] "
                      f"{r['confirm'].get('summary')}\n    {r['snippet'][:100]}\n    "
                      f"{(r['confirm'].get('evidence') or '')[:300]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/realworld"))
    ap.add_argument("--judged", type=Path, default=HERE / "judged.tsv")
    ap.add_argument("--repos", type=Path, default=HERE / "repos.tsv")
    ap.add_argument("--repo", help="only this repository (owner/name)")
    ap.add_argument("--codes", help="only files with a judged finding of these codes (comma-separated)")
    ap.add_argument("--jaxlint-root", type=Path, default=ROOT, help="the jaxlint checkout to run")
    ap.add_argument("--jobs", type=int, default=2, help="confirm runs in parallel")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per file")
    ap.add_argument("--save", type=Path, help="write the joined rows as JSON")
    ap.add_argument("--load", type=Path, help="report the rows of an earlier --save")
    ap.add_argument("--show", choices=("F", "T", "Tcnr", "Tclean"),
                    help="list F confirmed, T not reproduced, T that imported but could not run, "
                         "or T not confirmed in a file that ran whole")
    args = ap.parse_args(argv)

    if args.load:
        data = json.loads(args.load.read_text())
        report(data["rows"], args.show)
        return 0
    judged = ledger.load_judged(args.judged)
    codes = set(args.codes.split(",")) if args.codes else None
    files = judged_files(judged, ledger.repo_sets(args.repos), args.corpus, args.repo, codes)
    if not files:
        raise SystemExit(f"no judged file found under {args.corpus} (run fetch_corpus.py)")
    pairs = lint(files)
    ledger.join([row for row, _ in pairs], judged)
    start = time.perf_counter()
    verdicts, seconds = confirm(pairs, args.jobs, args.timeout)
    wall = time.perf_counter() - start
    rows = [{**row, "confirm": v, "seconds": seconds.get(os.path.realpath(f.path),
                                                         seconds.get(os.path.abspath(f.path)))}
            for (row, f), v in zip(pairs, verdicts)]
    per_file = sorted(seconds.values())
    load = os.getloadavg()
    print(f"{len(files)} judged files, {len({f.path for _, f in pairs})} with a finding today, "
          f"{len(pairs)} findings ({sum(r['verdict'] in 'TF' and r['verdict'] != '' for r in rows)} "
          f"judged); confirm wall {wall:.0f} s with --jobs {args.jobs}; per file median "
          f"{per_file[len(per_file) // 2] * 1000:.0f} ms, 90th percentile "
          f"{per_file[int(len(per_file) * 0.9)] * 1000:.0f} ms, max {per_file[-1]:.1f} s; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n" if per_file else "")
    report(rows, args.show)
    if args.save:
        args.save.write_text(json.dumps({"rows": rows, "wall": wall, "seconds": seconds,
                                         "load": load}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
