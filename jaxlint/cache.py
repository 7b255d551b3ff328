"""A cache of results for unchanged files, in `.jaxlint_cache/` at the project root.

A file's result is reused when its content (sha256 of the bytes) is the same
and so is everything else that decides the result: the effective settings
(their repr, which covers select / ignore / per-file-ignores / transforms), the
enabled codes, jaxlint's version, the Python version (libcst's parser follows
it), and a fingerprint of jaxlint's own modules (so a rule edited in a checkout
is not answered from a stale cache). Each such key gets its own file, so
switching settings back and forth keeps both.

The digest stored with a result is the digest of the bytes the worker analysed,
not of what was read when the cache was consulted: a file edited during the run
is never cached under its old content's hash.

Results are stored as JSON, never pickle, and every value read back is checked
for its type: a corrupt or planted cache file can at worst be ignored. Any
problem reading or writing the cache is silent: the files are linted as if
there were no cache. Pruning deletes only result files that start with
jaxlint's own marker, never a user's file that happens to share the folder.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Optional

from jaxlint import __version__
from jaxlint.config import Settings
from jaxlint.finding import Diagnostic, Finding
from jaxlint.source import MAX_FILE_BYTES, content_digest, read_bytes, write_atomic

CACHE_DIR_NAME = ".jaxlint_cache"
FORMAT = 2
# Every result file starts with these bytes; pruning deletes nothing else.
MARKER = b'{"jaxlint-cache":' + str(FORMAT).encode() + b","
_RESULT_FILE = re.compile(r"results-[0-9a-f]{24}\.json")
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
    h.update(f"python={sys.implementation.name}-{sys.version}\n".encode())
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


_OPTIONAL_INT = (int, type(None))
_OPTIONAL_STR = (str, type(None))
# The type of every field a cache entry may hold (bool is an int: excluded below).
_FINDING_TYPES = {"line": int, "col": int, "end_line": int, "end_col": int, "code": str,
                  "message": str, "name": str, "severity": str, "function": _OPTIONAL_STR,
                  "function_line": _OPTIONAL_INT, "confirm": dict, "cell": _OPTIONAL_INT,
                  "verdict": (dict, type(None)), "fix": (dict, type(None))}
_DIAGNOSTIC_TYPES = {"message": str, "line": _OPTIONAL_INT, "col": _OPTIONAL_INT, "code": str,
                     "path": _OPTIONAL_STR, "cell": _OPTIONAL_INT}


def _typed(item: Any, types: dict[str, Any], required: tuple[str, ...]) -> dict:
    """The item's known fields, checked: a planted or damaged entry raises ValueError."""
    if not isinstance(item, dict) or not all(k in item for k in required):
        raise ValueError("malformed entry")
    out = {}
    for key, value in item.items():
        expected = types.get(key)
        if expected is None:
            continue
        if not isinstance(value, expected) or isinstance(value, bool):
            raise ValueError(f"malformed `{key}`")
        out[key] = value
    return out


def _finding(path: str, item: Any) -> Finding:
    fields = _typed(item, _FINDING_TYPES, ("line", "col", "end_line", "end_col", "code", "message"))
    fields = {k: _decode(v) for k, v in fields.items()}
    if not isinstance(fields.get("confirm", {}), dict) or not isinstance(fields.get("verdict"), (dict, type(None))):
        raise ValueError("malformed `confirm`")
    return Finding(path=path, **fields)


def _diagnostic(path: str, item: Any) -> Diagnostic:
    fields = _typed(item, _DIAGNOSTIC_TYPES, ("message",))
    own = fields.pop("path", None)
    return Diagnostic(path=path if own is None else own, **fields)


class Cache:
    def __init__(self, directory: str, key: str, settings: Optional[Settings] = None):
        self.directory = directory
        self.settings = settings
        self._salts: dict[str, str] = {}  # per path, from get() to put(): one read a file
        self.file = os.path.join(directory, f"results-{key}.json")
        self.entries: dict[str, dict] = {}
        self.dirty = False
        self.hits = 0
        self.misses = 0
        self._load()

    @classmethod
    def for_settings(cls, settings: Settings) -> "Cache":
        directory = os.environ.get("JAXLINT_CACHE_DIR") or os.path.join(settings.root, CACHE_DIR_NAME)
        return cls(directory, settings_key(settings), settings)

    def _load(self) -> None:
        try:
            with open(self.file, encoding="utf-8") as fh:
                data = json.load(fh)
            if isinstance(data, dict) and data.get("jaxlint-cache") == FORMAT and isinstance(data.get("files"), dict):
                self.entries = data["files"]
        except (OSError, ValueError, RecursionError):
            self.entries = {}

    def get(self, path: str):
        """The cached FileResult for `path`, or None (not cached, changed, or unreadable)."""
        from jaxlint.finding import FileResult

        # Never blocks: a FIFO or device is refused before reading (the worker reports it).
        data = read_bytes(path, MAX_FILE_BYTES * 64)
        if isinstance(data, bytes):
            digest = content_digest(data)
        else:
            return None
        key = os.path.abspath(path)
        salt = self._salts[key] = self._project_salt(path, data)
        entry = self.entries.get(key)
        if not isinstance(entry, dict) or entry.get("sha256") != digest or entry.get("project", "") != salt:
            self.misses += 1
            return None
        try:
            findings = entry["findings"]
            diagnostics = entry["diagnostics"]
            if not isinstance(findings, list) or not isinstance(diagnostics, list):
                raise ValueError("malformed entry")
            result = FileResult(path, [_finding(path, d) for d in findings],
                                [_diagnostic(path, d) for d in diagnostics], sha256=digest)
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            self.misses += 1
            return None
        self.hits += 1
        return result

    def put(self, result) -> None:
        """Remember a result under the digest of the bytes that were analysed."""
        key = os.path.abspath(result.path)
        digest = result.sha256
        if digest is None or result.path == "-":
            return  # not read from a file (standard input)
        entry = self.entries.get(key)
        if isinstance(entry, dict) and entry.get("sha256") == digest:
            return  # answered from the cache, or linted again unchanged
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
        entry = {"sha256": digest, "findings": findings, "diagnostics": diagnostics}
        salt = self._salts.get(key)
        if salt is None:
            data = read_bytes(result.path, MAX_FILE_BYTES * 64)
            salt = self._project_salt(result.path, data) if isinstance(data, bytes) else ""
        if salt:
            entry["project"] = salt
        self.entries[key] = entry
        self.dirty = True

    def _project_salt(self, path: str, data: bytes) -> str:
        # x64 turned on in a conftest.py changes JAX702's findings in unchanged files.
        from jaxlint.engine.project import project_salt

        return project_salt(path, data, self.settings)

    def _prune(self) -> None:
        """Keep the newest few result files: older settings or jaxlint versions."""
        try:
            files = sorted((e for e in os.scandir(self.directory)
                            if _RESULT_FILE.fullmatch(e.name) and e.is_file(follow_symlinks=False)
                            and _has_marker(e.path)),
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
            # The marker key first: pruning recognises jaxlint's files by it.
            data = json.dumps({"jaxlint-cache": FORMAT, "version": __version__, "files": self.entries},
                              separators=(",", ":"))
            write_atomic(self.file, data.encode("utf-8"), fsync=False)
            self._prune()
            self.dirty = False
        except (OSError, TypeError, ValueError):
            pass


def _has_marker(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(len(MARKER)) == MARKER
    except OSError:
        return False
