#!/usr/bin/env python3
"""Precision ledger: jaxlint findings on the real-code corpus joined with judged.tsv.

    python benchmarks/realworld/fetch_corpus.py            # extract the corpus first
    python benchmarks/realworld/ledger.py --set all
    python benchmarks/realworld/ledger.py --set user --write-unjudged /tmp/unjudged.tsv
    python benchmarks/realworld/ledger.py --batch 1 --jaxlint-root /work/wt/base   # a first look

jaxlint is run as ``python -m jaxlint --no-cache --output-format json --select JAX <dir>``
with PYTHONPATH pointing at this checkout (override with --jaxlint-root).  Each finding
is matched to a judgement in judged.tsv on (repo, path, code, normalized snippet of the
flagged source line); when no snippet matches, on (repo, path, code, line).  Notebook
findings are located as ``<cell>:<line-in-cell>`` in the ``line`` column.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FIELDS = ["repo", "path", "line", "code", "verdict", "snippet", "reason"]
FAMILIES = ["JAX1xx", "JAX2xx", "JAX3xx", "JAX4xx", "JAX5xx", "JAX6xx", "JAX7xx", "JAX8xx", "JAX9xx", "E999"]
TRACE = FAMILIES[:6]


def norm(snippet: str) -> str:
    return re.sub(r"\s+", " ", snippet or "").strip()


def family(code: str) -> str:
    return f"JAX{code[3]}xx" if code.startswith("JAX") and len(code) >= 4 else code


def read_repos(tsv: Path) -> list[dict]:
    with open(tsv, newline="") as fh:
        return [r for r in csv.DictReader(fh, delimiter="\t") if r.get("repo")]


def repo_sets(tsv: Path) -> dict[str, str]:
    return {r["repo"]: r["set"] for r in read_repos(tsv)}


def repo_batches(tsv: Path) -> dict[str, str]:
    """Batch 0 is the corpus the rules were tuned on; batches 1.. were added later and
    judged at first look, before any rule changed for them."""
    return {r["repo"]: (r.get("batch") or "0") for r in read_repos(tsv)}


def source_line(file: Path, row: int, cell: int | None) -> str:
    try:
        if cell is not None:
            nb = json.loads(file.read_text(encoding="utf-8"))
            src = nb["cells"][cell - 1].get("source", "")
            text = "".join(src) if isinstance(src, list) else src
        else:
            text = file.read_text(encoding="utf-8", errors="replace")
        lines = text.splitlines()
        return lines[row - 1].strip() if 0 < row <= len(lines) else ""
    except (OSError, ValueError, KeyError, IndexError):
        return ""


def run_jaxlint(targets: list[Path], jaxlint_root: Path, extend_select: str = "") -> list[dict]:
    env = dict(os.environ, PYTHONPATH=str(jaxlint_root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # The default selection: what a user sees without configuring anything.
    # `--extend-select JAX407,JAX602` adds opt-in rules to measure them.
    extra = ["--extend-select", extend_select] if extend_select else []
    # -P: `python -m` would put the working directory first on sys.path, so run from a jaxlint
    # checkout it imports that checkout and --jaxlint-root is silently ignored.
    proc = subprocess.run([sys.executable, "-P", "-m", "jaxlint", "--no-cache", "--output-format", "json",
                           *extra, *map(str, targets)], capture_output=True, text=True, env=env)
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"jaxlint failed with exit status {proc.returncode}")
    for line in proc.stderr.splitlines():
        print(f"  [jaxlint] {line}", file=sys.stderr)
    # E999 (a file or notebook cell jaxlint cannot parse) is what a user sees, so it is judged
    # too; E902 (an unreadable file) is about the corpus, not the code.
    return [f for f in json.loads(proc.stdout or "[]") if f.get("code", "").startswith(("JAX", "E999"))]


def findings_for(corpus: Path, set_name: str, sets: dict[str, str], jaxlint_root: Path,
                 extend_select: str = "", only: set[str] | None = None) -> list[dict]:
    out = []
    base = corpus / set_name
    if not base.is_dir():
        print(f"no corpus at {base} (run fetch_corpus.py)", file=sys.stderr)
        return out
    local = {r.replace("/", "__"): r for r, s in sets.items() if s == set_name}
    if only is None:
        targets = [base]
    else:
        targets = [base / d for d, r in sorted(local.items()) if r in only and (base / d).is_dir()]
        if not targets:
            return out
    for f in run_jaxlint(targets, jaxlint_root, extend_select):
        rel = Path(f["filename"]).resolve().relative_to(base.resolve())
        repo = local.get(rel.parts[0], rel.parts[0])
        path = Path(*rel.parts[1:]).as_posix()
        row = f["location"]["row"]
        cell = f.get("cell")
        out.append({
            "set": set_name, "repo": repo, "path": path, "code": f["code"],
            "line": f"{cell}:{row}" if cell is not None else str(row),
            "snippet": source_line(Path(f["filename"]), row, cell),
            "message": f["message"],
        })
    return out


def load_judged(tsv: Path) -> list[dict]:
    if not tsv.exists():
        return []
    with open(tsv, newline="") as fh:
        return [r for r in csv.DictReader(fh, delimiter="\t") if r.get("repo")]


def join(findings: list[dict], judged: list[dict]) -> None:
    by_snip = defaultdict(list)
    by_line = {}
    for j in judged:
        by_snip[(j["repo"], j["path"], j["code"], norm(j.get("snippet", "")))].append(j)
        by_line[(j["repo"], j["path"], j["code"], j["line"])] = j
    used = Counter()
    for f in findings:
        key = (f["repo"], f["path"], f["code"], norm(f["snippet"]))
        cands = by_snip.get(key) if key[3] else None
        j = None
        if cands:
            # several identical snippets in one file: prefer the same line, else take them in order
            j = next((c for c in cands if c["line"] == f["line"]), None)
            if j is None:
                j = cands[min(used[key], len(cands) - 1)]
            used[key] += 1
        else:
            j = by_line.get((f["repo"], f["path"], f["code"], f["line"]))
        f["verdict"] = (j or {}).get("verdict", "").strip().upper()
        f["reason"] = (j or {}).get("reason", "")


def prec(c: Counter) -> str:
    return f"{c['T'] / (c['T'] + c['F']):.3f}" if c["T"] + c["F"] else "  -  "


def report(findings: list[dict], title: str) -> None:
    stats = {fam: Counter() for fam in FAMILIES}
    codes = defaultdict(Counter)
    for f in findings:
        v = f["verdict"] if f["verdict"] in ("T", "F") else "?"
        stats.setdefault(family(f["code"]), Counter())[v] += 1
        codes[f["code"]][v] += 1

    print(f"\n== {title}: {len(findings)} findings ==")
    print(f"{'family':8} {'T':>5} {'F':>5} {'unjudged':>9} {'precision':>10}")
    for fam, c in stats.items():
        if sum(c.values()):
            print(f"{fam:8} {c['T']:5} {c['F']:5} {c['?']:9} {prec(c):>10}")
    trace = Counter()
    for fam in TRACE:
        trace.update(stats.get(fam, Counter()))
    print(f"{'trace':8} {trace['T']:5} {trace['F']:5} {trace['?']:9} {prec(trace):>10}   (JAX1xx-JAX6xx)")
    print("per rule: " + ", ".join(f"{k} {c['T']}T/{c['F']}F" + (f"/{c['?']}?" if c["?"] else "")
                                  for k, c in sorted(codes.items())))


def batch_table(findings: list[dict], batches: dict[str, str]) -> None:
    """One line per batch: T/F per family, first-look figures for batches 1.."""
    per = defaultdict(lambda: defaultdict(Counter))
    for f in findings:
        v = f["verdict"] if f["verdict"] in ("T", "F") else "?"
        b = batches.get(f["repo"], "0")
        per[b][family(f["code"])][v] += 1
        if family(f["code"]) in TRACE:
            per[b]["trace"][v] += 1
    cols = FAMILIES + ["trace"]
    print("\n== per batch (0 = tuned corpus; 1.. = first look): T/F [precision] ==")
    for b in sorted(per, key=lambda x: int(x) if x.isdigit() else 10**6):
        cells = [f"{fam} {c['T']}/{c['F']}" + (f"/{c['?']}?" if c["?"] else "") + f" [{prec(c).strip()}]"
                 for fam in cols if sum((c := per[b][fam]).values())]
        print(f"batch {b}: " + ", ".join(cells))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=("user", "library", "all"), default="all")
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/realworld"))
    ap.add_argument("--judged", type=Path, default=HERE / "judged.tsv")
    ap.add_argument("--repos", type=Path, default=HERE / "repos.tsv")
    ap.add_argument("--jaxlint-root", type=Path, default=ROOT)
    ap.add_argument("--extend-select", default="", metavar="CODES",
                    help="opt-in rules to measure as well, e.g. JAX407,JAX602")
    ap.add_argument("--write-unjudged", type=Path, metavar="FILE",
                    help="append the unjudged findings to FILE (judged.tsv columns, verdict empty)")
    ap.add_argument("--findings-json", type=Path, metavar="FILE", help="also dump the joined findings")
    ap.add_argument("--batch", help="only the repositories of this batch (repos.tsv `batch` column)")
    args = ap.parse_args(argv)

    sets = repo_sets(args.repos)
    batches = repo_batches(args.repos)
    only = None if args.batch is None else {r for r, b in batches.items() if b == args.batch}
    judged = load_judged(args.judged)
    names = ["user", "library"] if args.set == "all" else [args.set]
    allf = []
    for s in names:
        fs = findings_for(args.corpus, s, sets, args.jaxlint_root, args.extend_select, only)
        join(fs, judged)
        report(fs, f"set {s}")
        allf += fs
    if len(names) > 1:
        report(allf, "all sets")
    batch_table(allf, batches)

    unjudged = [f for f in allf if f["verdict"] not in ("T", "F")]
    print(f"\n{len(unjudged)} unjudged finding(s)")
    for f in unjudged:
        print(f"  {f['repo']}:{f['path']}:{f['line']}: {f['code']}  {f['snippet'][:100]}")
    if args.write_unjudged and unjudged:
        new = not args.write_unjudged.exists() or args.write_unjudged.stat().st_size == 0
        with open(args.write_unjudged, "a", newline="") as fh:
            w = csv.DictWriter(fh, FIELDS, delimiter="\t", extrasaction="ignore", lineterminator="\n")
            if new:
                w.writeheader()
            for f in unjudged:
                w.writerow({**f, "verdict": "", "reason": ""})
    if args.findings_json:
        args.findings_json.write_text(json.dumps(allf, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
