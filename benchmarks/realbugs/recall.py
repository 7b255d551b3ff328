"""Recall of jaxlint on the real-bug corpus: which reported bugs does it flag?

Each case in cases/ is a reproduction of one public bug report, with a header saying
which jaxlint code(s) should flag it and, optionally, on which line. A case is found
when jaxlint reports one of its expected codes (on the expected line, +-1, when the
header gives one). Recall is printed per rule family (JAX1xx ... JAX9xx).

    python benchmarks/realbugs/recall.py                      # this checkout
    python benchmarks/realbugs/recall.py --jaxlint-root DIR   # another checkout
    python benchmarks/realbugs/recall.py --batch 2            # only the cases of batch 2
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
HEADER_KEYS = ("source", "expect", "line", "observed", "batch")
REQUIRED_KEYS = ("source", "expect", "observed")
CODE = re.compile(r"^JAX\d{3}$")
LINE_SLACK = 1


@dataclass(frozen=True)
class Case:
    path: Path
    source: str
    expect: tuple
    line: int | None
    observed: str
    batch: int | None

    @property
    def name(self):
        return self.path.stem

    @property
    def family(self):
        """JAX2xx for `expect: JAX201, JAX205`: the first expected code decides."""
        return self.expect[0][:4] + "xx"


class HeaderError(ValueError):
    pass


def read_header(path):
    """The `# key: value` comment lines at the top of a case, as a dict."""
    fields = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"#\s*(\w+):\s*(.*?)\s*$", line)
        if not match:
            break
        key, value = match.groups()
        if key in HEADER_KEYS:
            fields[key] = value
    return fields


def load_case(path):
    fields = read_header(path)
    missing = [key for key in REQUIRED_KEYS if not fields.get(key)]
    if missing:
        raise HeaderError(f"{path.name}: header lacks {', '.join(missing)}")
    expect = tuple(code.strip() for code in fields["expect"].split(","))
    bad = [code for code in expect if not CODE.match(code)]
    if bad:
        raise HeaderError(f"{path.name}: not a jaxlint code: {', '.join(bad)}")
    if not fields["source"].startswith("https://"):
        raise HeaderError(f"{path.name}: source is not a URL: {fields['source']}")
    line = fields.get("line")
    batch = fields.get("batch")
    for key, value in (("line", line), ("batch", batch)):
        if value is not None and not value.isdigit():
            raise HeaderError(f"{path.name}: {key} is not a number: {value}")
    return Case(path, fields["source"], expect, int(line) if line else None,
                fields["observed"], int(batch) if batch else None)


def load_cases(directory=CASES):
    return [load_case(path) for path in sorted(Path(directory).glob("*.py"))]


def run_jaxlint(paths, root):
    """jaxlint's findings, as {file name: [(code, line)]}, from the checkout at `root`."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "jaxlint.toml"
        config.write_text("[tool.jaxlint]\n")
        env = dict(os.environ, PYTHONPATH=str(root), JAX_PLATFORMS="cpu")
        command = [sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", "json",
                   "--select", "JAX", "--config", str(config), "--exit-zero",
                   *map(str, paths)]
        result = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"jaxlint failed ({result.returncode}):\n{result.stderr}")
    findings = defaultdict(list)
    for item in json.loads(result.stdout):
        row = (item.get("location") or {}).get("row")
        findings[Path(item["filename"]).name].append((item["code"], row))
    return findings


def is_found(case, findings):
    for code, row in findings.get(case.path.name, ()):
        if code in case.expect and (case.line is None or abs(row - case.line) <= LINE_SLACK):
            return True
    return False


def report(cases, findings, title):
    by_family = defaultdict(list)
    for case in cases:
        by_family[case.family].append(case)
    print(f"## {title}")
    print("| family | found | total | recall |")
    print("| --- | --- | --- | --- |")
    found_all = 0
    misses = []
    for family in sorted(by_family):
        group = by_family[family]
        found = [case for case in group if is_found(case, findings)]
        found_all += len(found)
        misses += [case for case in group if case not in found]
        print(f"| {family} | {len(found)} | {len(group)} | {len(found) / len(group):.2f} |")
    total = len(cases)
    print(f"| all | {found_all} | {total} | {found_all / total:.2f} |" if total else "| all | 0 | 0 | - |")
    if misses:
        print("\nmissed:")
        for case in misses:
            reported = sorted({f"{code}@{row}" for code, row in findings.get(case.path.name, ())})
            where = f" line {case.line}" if case.line else ""
            print(f"- {case.name}: expect {','.join(case.expect)}{where}; "
                  f"reported {', '.join(reported) or 'nothing'}")
    print()


def _case_path(name: str, folder: Path) -> Path:
    """A case named as a path (from anywhere) or by its name in the cases folder
    (`differt_pr_246`, `cases/differt_pr_246.py`): jaxlint runs in another folder."""
    for path in (Path(name), folder / name, folder / f"{name}.py", folder / Path(name).name):
        if path.is_file():
            return path.resolve()
    raise SystemExit(f"no case {name!r} (looked in {folder})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jaxlint-root", default=str(HERE.parents[1]),
                        help="the jaxlint checkout to measure (default: this one)")
    parser.add_argument("--cases", default=str(CASES), help="the folder of cases")
    parser.add_argument("--batch", type=int, action="append",
                        help="only the cases of this batch (repeatable); `--batch 0` prints every batch")
    parser.add_argument("cases_named", nargs="*", metavar="CASE", help="only these case files")
    args = parser.parse_args(argv)
    cases = ([load_case(_case_path(name, Path(args.cases))) for name in args.cases_named]
             if args.cases_named else load_cases(args.cases))
    if args.batch and 0 not in args.batch:
        cases = [case for case in cases if case.batch in args.batch]
    if not cases:
        raise SystemExit("no cases")
    findings = run_jaxlint([case.path for case in cases], Path(args.jaxlint_root).resolve())
    root = Path(args.jaxlint_root).resolve()
    if args.batch and 0 in args.batch:
        for batch in sorted({case.batch for case in cases if case.batch is not None}):
            report([case for case in cases if case.batch == batch], findings,
                   f"batch {batch} (jaxlint at {root})")
    title = f"batch {', '.join(map(str, args.batch))}" if args.batch and 0 not in args.batch else "all cases"
    report(cases, findings, f"{title} (jaxlint at {root})")


if __name__ == "__main__":
    main()
