"""Finding the files to lint: recursive, with excludes, and safe against symlink loops."""

from __future__ import annotations

import errno
import os
from typing import Iterable, Iterator, Union

from jaxlint.config import Settings
from jaxlint.finding import Diagnostic

SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")


def discover(paths: Iterable[str], settings: Settings) -> Iterator[Union[str, Diagnostic]]:
    """Yield file paths to lint (and diagnostics for paths that cannot be walked).

    Files named explicitly are always linted, unless `force_exclude` is set and an
    exclude pattern matches them (pre-commit passes files explicitly).
    """
    seen: set[str] = set()
    for path in paths:
        if not os.path.exists(path):
            if os.path.islink(path):
                yield Diagnostic(path, _bad_link(path))
            else:
                yield Diagnostic(path, "no such file or directory")
            continue
        if os.path.isdir(path):
            if settings.force_exclude and settings.is_excluded(path) and path not in (".", "./"):
                continue
            yield from _walk(path, settings, seen)
        else:
            if settings.force_exclude and settings.is_excluded(path):
                continue
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                yield path


def _walk(top: str, settings: Settings, seen: set[str]) -> Iterator[Union[str, Diagnostic]]:
    visited_dirs: set[str] = set()
    stack = [top]
    while stack:
        d = stack.pop()
        real = os.path.realpath(d)
        if real in visited_dirs:
            continue
        visited_dirs.add(real)
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError as exc:
            yield Diagnostic(d, f"cannot read directory: {exc.strerror or exc}")
            continue
        subdirs = []
        for entry in entries:
            path = os.path.normpath(entry.path)
            if settings.is_excluded(path):
                continue
            try:
                is_dir = entry.is_dir()  # follows symlinks
            except OSError:
                is_dir = False
            if is_dir:
                if entry.is_symlink():
                    target = os.path.realpath(path)
                    if target in visited_dirs or real.startswith(target + os.sep) or target == real:
                        yield Diagnostic(path, f"symbolic link loop (points to {target}); skipped")
                        continue
                subdirs.append(path)
            elif entry.name.endswith(SOURCE_SUFFIXES):
                if entry.is_symlink() and not os.path.exists(path):
                    yield Diagnostic(path, _bad_link(path))
                    continue
                rp = os.path.realpath(path)
                if rp not in seen:
                    seen.add(rp)
                    yield path
        stack.extend(reversed(subdirs))


def _bad_link(path: str) -> str:
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop; skipped"
    return "broken symbolic link"
