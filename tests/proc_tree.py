"""The process tree, read from /proc: for tests that check nothing is left running."""

from __future__ import annotations

import os


def _stat_fields(pid: int | str) -> list[str] | None:
    """State, parent pid, ... of `/proc/PID/stat` (after the command name), or None."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def children(pid: int) -> list[int]:
    """Live (non-zombie) processes whose parent is `pid`."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(entry)
            if fields is not None and fields[0] != "Z" and int(fields[1]) == pid:
                out.append(int(entry))
    return out


def descendants(root: int) -> list[int]:
    """Live processes below `root`, at any depth (one read of /proc)."""
    by_parent: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(entry)
            if fields is not None and fields[0] != "Z":
                by_parent.setdefault(int(fields[1]), []).append(int(entry))
    out, stack = [], [root]
    while stack:
        for pid in by_parent.get(stack.pop(), []):
            out.append(pid)
            stack.append(pid)
    return out


def alive(pids) -> list[int]:
    """The pids among `pids` that still run (not gone, not zombies)."""
    return [pid for pid in pids if (fields := _stat_fields(pid)) is not None and fields[0] != "Z"]
