#!/usr/bin/env python3
"""Extract the real-code measurement corpus listed in repos.tsv.

Each repository is read from the bare git mirror that the project's ``fetch``
tool leaves at ``<mirror-root>/<owner>+<name>/repo`` and extracted at the commit
pinned in repos.tsv into ``<out>/<set>/<owner>__<name>/``.  Only ``.py`` and
``.ipynb`` files are kept (with the docs, scripts and configs jaxlint's project facts read,
and an empty ``.git`` marking the repository's root, as in a checkout); for the ``library`` set test files (anything under a
``tests/`` or ``test/`` directory, ``*_test.py``, ``test_*.py``, ``conftest.py``)
are dropped too.

    python benchmarks/realworld/fetch_corpus.py                # all sets
    python benchmarks/realworld/fetch_corpus.py --set user --out /tmp/realworld
    python benchmarks/realworld/fetch_corpus.py --batch 2     # one first-look batch only
"""
from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
DEFAULT_MIRROR = Path("/work/.mirror")
DEFAULT_OUT = Path("/tmp/realworld")


def read_repos(path: Path = HERE / "repos.tsv") -> list[dict]:
    with open(path, newline="") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r.get("repo") and not r["set"].startswith("#")]
    return rows


def local_name(repo: str) -> str:
    return repo.replace("/", "__")


def find_mirror(root: Path, repo: str) -> Path:
    owner, name = repo.split("/", 1)
    base = root / f"{owner}+{name}"
    for cand in (base / "repo", base):
        if (cand / "HEAD").exists() and (cand / "objects").exists():
            return cand
    # any bare git dir under the owner+name folder
    if base.is_dir():
        for head in sorted(base.rglob("HEAD")):
            if (head.parent / "objects").is_dir():
                return head.parent
    raise FileNotFoundError(f"no mirror for {repo} under {base} (run the fetch tool on github:{repo})")


# The text files jaxlint's project facts read (jaxlint/engine/project.py), and its markers.
_PROJECT_SUFFIXES = frozenset({".md", ".rst", ".txt", ".sh", ".bash", ".cfg", ".toml", ".ini", ".yaml", ".yml",
                               ".env", ".envrc"})
_PROJECT_NAMES = frozenset({"Makefile", "Dockerfile", ".env", ".envrc", "pyproject.toml", "setup.py", "setup.cfg"})


def is_test_file(path: str) -> bool:
    p = PurePosixPath(path)
    if any(part in ("tests", "test", "testing") for part in p.parts[:-1]):
        return True
    n = p.name
    return n.endswith("_test.py") or n.startswith("test_") or n == "conftest.py"


def project_context(path: str) -> bool:
    """A text file jaxlint reads for the project around the code (docs, scripts and configs
    that may set JAX_ENABLE_X64, the project markers): kept so that a file's project looks
    as it does in a checkout; not linted, not counted."""
    p = PurePosixPath(path)
    return p.suffix in _PROJECT_SUFFIXES or p.name in _PROJECT_NAMES


def keep(path: str, set_name: str, subpaths: list[str]) -> bool:
    if not (path.endswith(".py") or path.endswith(".ipynb") or project_context(path)):
        return False
    if subpaths != ["."] and not any(path == s or path.startswith(s.rstrip("/") + "/") for s in subpaths):
        return False
    if set_name == "library" and is_test_file(path):
        return False
    return True


def extract(row: dict, mirror_root: Path, out_root: Path) -> tuple[int, int]:
    git_dir = find_mirror(mirror_root, row["repo"])
    subpaths = [s.strip() for s in (row.get("paths") or ".").split(",") if s.strip()] or ["."]
    dest = out_root / row["set"] / local_name(row["repo"])
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    # ls-tree + cat-file rather than git archive: a snapshot's largest blobs may be
    # listed but absent, and archive aborts on the first missing object.
    listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", row["commit"]],
                             check=True, capture_output=True).stdout
    wanted = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, sha = meta.split()
        path = name.decode("utf-8", "surrogateescape")
        if kind == b"blob" and mode != b"120000" and keep(path, row["set"], subpaths):
            wanted.append((sha.decode(), path))
    proc = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
                          input="".join(f"{sha}\n" for sha, _ in wanted).encode(),
                          check=True, capture_output=True)
    out = proc.stdout
    pos = 0
    nfiles = nlines = missing = 0
    for sha, path in wanted:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if len(header) < 3 or header[1] == b"missing":
            missing += 1
            continue
        size = int(header[2])
        blob = out[pos:pos + size]
        pos += size + 1
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)
        if project_context(path):
            continue
        nfiles += 1
        nlines += blob.count(b"\n")
    # A checkout has a .git: the repository's root is its project's root, as for its users.
    (dest / ".git").touch()
    if missing:
        print(f"  note: {row['repo']}: {missing} file(s) absent from the snapshot", file=sys.stderr)
    return nfiles, nlines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", type=Path, default=Path(os.environ.get("JAXLINT_MIRROR", DEFAULT_MIRROR)))
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--set", choices=("user", "library", "all"), default="all")
    ap.add_argument("--repos", type=Path, default=HERE / "repos.tsv")
    ap.add_argument("--batch", help="only the repositories of this batch (repos.tsv `batch` column; 0 = the tuned corpus)")
    args = ap.parse_args(argv)
    failed = 0
    for row in read_repos(args.repos):
        if args.set != "all" and row["set"] != args.set:
            continue
        if args.batch is not None and row.get("batch", "0") != args.batch:
            continue
        try:
            nf, nl = extract(row, args.mirror, args.out)
        except (FileNotFoundError, subprocess.CalledProcessError) as exc:
            print(f"SKIP {row['repo']}: {exc}", file=sys.stderr)
            failed += 1
            continue
        print(f"{row['set']:8} {row['repo']:55} {row['commit'][:10]} files={nf:5} lines={nl}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
