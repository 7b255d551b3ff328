"""Baselines: record today's findings, then report only new ones.

`--write-baseline FILE` stores each finding's path (relative to the project
root), code and stable fingerprint (jaxlint.fingerprints: the flagged line's
text, not its number), so a finding in code that moves keeps matching.
`--baseline FILE` hides the findings the file lists, counting repeats: a
second copy of a baselined line is new.
"""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path
from typing import MutableMapping

from jaxlint.config import ConfigError
from jaxlint.fingerprints import fingerprints

VERSION = 1


def _key(path: str, root: str, cell, code: str, fingerprint: str) -> tuple:
    try:
        rel = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(root))).as_posix()
    except ValueError:  # pragma: no cover - another drive on Windows
        rel = Path(path).as_posix()
    return (rel, cell, code, fingerprint)


def write_baseline(file: str, findings, sources: MutableMapping[str, str], root: str) -> int:
    entries = []
    for f, fp in zip(findings, fingerprints(findings, sources)):
        rel, cell, code, fingerprint = _key(f.path, root, f.cell, f.code, fp)
        entry = {"path": rel, "code": code, "fingerprint": fingerprint, "message": f.message}
        if cell:
            entry["cell"] = cell
        entries.append(entry)
    data = {"jaxlint-baseline": VERSION, "findings": entries}
    Path(file).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return len(entries)


def load_baseline(file: str) -> collections.Counter:
    try:
        data = json.loads(Path(file).read_text(encoding="utf-8"))
        if data.get("jaxlint-baseline") != VERSION:
            raise ValueError("not a jaxlint baseline (version 1)")
        return collections.Counter((e["path"], e.get("cell"), e["code"], e["fingerprint"])
                                   for e in data["findings"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"--baseline {file}: cannot read: {exc}") from None


def filter_baseline(findings, baseline: collections.Counter, sources: MutableMapping[str, str],
                    root: str) -> tuple[list, int]:
    """The findings not in the baseline, and how many were hidden."""
    left = collections.Counter(baseline)
    out = []
    hidden = 0
    for f, fp in zip(findings, fingerprints(findings, sources)):
        key = _key(f.path, root, f.cell, f.code, fp)
        if left[key] > 0:
            left[key] -= 1
            hidden += 1
        else:
            out.append(f)
    return out, hidden
