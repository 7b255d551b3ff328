"""A cache of results for unchanged files, in `.jaxlint_cache/` at the project root.

A file's result is reused when its content (sha256 of the bytes) is the same
and so is everything else that decides the result: the effective settings
(their repr, which covers select / ignore / per-file-ignores / transforms), the
enabled codes, jaxlint's version, and a fingerprint of jaxlint's own modules
(so a rule edited in a checkout is not answered from a stale cache). Each such
key gets its own file, so switching settings back and forth keeps both.

Results are stored as JSON, never pickle: a corrupt or planted cache file can
at worst be ignored. Any problem reading or writing the cache is silent: the
files are linted as if there were no cache.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from jaxlint import __version__
from jaxlint.config import Settings
from jaxlint.finding import Diagnostic, Finding

CACHE_DIR_NAME = ".jaxlint_cache"
FORMAT = 1
# Result files kept (one per settings key); older ones are deleted on save.
KEEP_RESULT_FILES = 8
# Diagnostics that describe the file's content, so are as cacheable as findings.
# Others (unreadable, timed out, crashed, internal error) may not recur: relint.
_CACHEABLE_DIAGNOSTICS = frozenset({"E999"})

_FINDING_FIELDS = [f.name for f in dataclasses.fields(Finding) if f.name != "path"]
_DIAGNOSTIC_FIELDS = [f.name for f in dataclasses.fields(Diagnostic) if f.name != "path"]


def _code_fingerprint() -> str:
    """Size and mtime of every jaxlint module and rule page: changes when jaxlint does."""
    h = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent
    for folder, pattern in ((package, "**/*.py"), (package.parent / "rules", "*.md"),
                            (package / "_pages", "*.md")):
        if not folder.is_dir():
            continue
        for p in sorted(folder.glob(pattern)):
            try:
                st = p.stat()
            except OSError:
                continue
            h.update(f"{p.relative_to(folder)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def settings_key(settings: Settings) -> str:
    h = hashlib.sha256()
    h.update(f"format={FORMAT}\nversion={__version__}\ncode={_code_fingerprint()}\n".encode())
    # The enabled codes follow from the settings and jaxlint's own code, both in the key;
    # not resolving them keeps a fully cached run from importing the rules (and libcst).
    h.update(repr(settings).encode())
    return h.hexdigest()[:24]


# JSON keeps lists, not tuples; confirm details may hold tuples, so they are tagged.
def _encode(value: Any) -> Any:
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError("non-string key")
        return {k: _encode(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if set(value) == {"__tuple__"}:
            return tuple(_decode(v) for v in value["__tuple__"])
        return {k: _decode(v) for k, v in value.items()}
    return value


def _well_typed(f: Finding) -> bool:
    """A planted or damaged entry must not reach the formats with odd types."""
    ints = (f.line, f.col, f.end_line, f.end_col)
    return (all(type(v) is int for v in ints) and all(isinstance(v, str) for v in (f.code, f.message, f.name, f.severity))
            and isinstance(f.confirm, dict) and (f.cell is None or type(f.cell) is int))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Cache:
    def __init__(self, directory: str, key: str):
        self.directory = directory
        self.file = os.path.join(directory, f"results-{key}.json")
        self.entries: dict[str, dict] = {}
        self.dirty = False
        self._hashes: dict[str, str] = {}  # path -> content digest seen by get()
        self.hits = 0
        self.misses = 0
        self._load()

    @classmethod
    def for_settings(cls, settings: Settings) -> "Cache":
        directory = os.environ.get("JAXLINT_CACHE_DIR") or os.path.join(settings.root, CACHE_DIR_NAME)
        return cls(directory, settings_key(settings))

    def _load(self) -> None:
        try:
            with open(self.file, encoding="utf-8") as fh:
                data = json.load(fh)
            if isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("files"), dict):
                self.entries = data["files"]
        except (OSError, ValueError, RecursionError):
            self.entries = {}

    def get(self, path: str):
        """The cached FileResult for `path`, or None (not cached, changed, or unreadable)."""
        from jaxlint.finding import FileResult

        try:
            with open(path, "rb") as fh:
                digest = _digest(fh.read())
        except OSError:
            return None
        key = os.path.abspath(path)
        self._hashes[key] = digest
        entry = self.entries.get(key)
        if not isinstance(entry, dict) or entry.get("sha256") != digest:
            self.misses += 1
            return None
        try:
            findings = [Finding(path=path, **{k: _decode(v) for k, v in d.items() if k in _FINDING_FIELDS})
                        for d in entry["findings"]]
            diagnostics = [Diagnostic(path=path if d.get("path") is None else d["path"],
                                      **{k: v for k, v in d.items() if k in _DIAGNOSTIC_FIELDS})
                           for d in entry["diagnostics"]]
            if not all(_well_typed(f) for f in findings):
                raise ValueError("malformed finding")
        except (KeyError, TypeError, ValueError, AttributeError):
            self.misses += 1
            return None
        self.hits += 1
        return FileResult(path, findings, diagnostics)

    def put(self, result) -> None:
        key = os.path.abspath(result.path)
        digest = self._hashes.get(key)
        if digest is None or self.entries.get(key, {}).get("sha256") == digest:
            return  # not looked up (stdin), or answered from the cache
        if any(d.code not in _CACHEABLE_DIAGNOSTICS for d in result.diagnostics):
            self.entries.pop(key, None)
            self.dirty = True
            return
        try:
            findings = [{name: _encode(getattr(f, name)) for name in _FINDING_FIELDS} for f in result.findings]
        except TypeError:
            return  # a value JSON cannot hold faithfully: do not cache this file
        diagnostics = []
        for d in result.diagnostics:
            item = {name: getattr(d, name) for name in _DIAGNOSTIC_FIELDS}
            item["path"] = None if d.path == result.path else d.path
            diagnostics.append(item)
        self.entries[key] = {"sha256": digest, "findings": findings, "diagnostics": diagnostics}
        self.dirty = True

    def _prune(self) -> None:
        """Keep the newest few result files: older settings or jaxlint versions."""
        try:
            files = sorted((e for e in os.scandir(self.directory)
                            if e.name.startswith("results-") and e.name.endswith(".json")),
                           key=lambda e: e.stat().st_mtime, reverse=True)
            for e in files[KEEP_RESULT_FILES:]:
                os.unlink(e.path)
        except OSError:
            pass

    def save(self) -> None:
        """Write the cache atomically; any failure leaves the old one (or none)."""
        if not self.dirty:
            return
        try:
            os.makedirs(self.directory, exist_ok=True)
            ignore = os.path.join(self.directory, ".gitignore")
            if not os.path.exists(ignore):
                with open(ignore, "w", encoding="utf-8") as fh:
                    fh.write("# Created by jaxlint automatically.\n*\n")
            tag = os.path.join(self.directory, "CACHEDIR.TAG")
            if not os.path.exists(tag):
                with open(tag, "w", encoding="utf-8") as fh:
                    fh.write("Signature: 8a477f597d28d172789f06886806bc55\n"
                             "# This file is a cache directory tag created by jaxlint.\n")
            fd, tmp = tempfile.mkstemp(prefix=".results-", suffix=".tmp", dir=self.directory)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump({"format": FORMAT, "version": __version__, "files": self.entries}, fh,
                              separators=(",", ":"))
                os.replace(tmp, self.file)
                self._prune()
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
            self.dirty = False
        except (OSError, TypeError, ValueError):
            pass
