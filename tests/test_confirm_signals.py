"""SIGTERM / SIGINT during `jaxlint --confirm` leave no process and no temporary folder behind:
not the worker, not the fork confirming the file (it has its own process group), not a
process the user's code started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from proc_tree import alive, descendants

pytest.importorskip("jax")

SLOW = '''import subprocess
import sys
import time

import jax

CHILD = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])


@jax.jit
def f(x):
    if x > 0:
        return x
    return x


time.sleep(600)
'''


def _confirm_slow(tmp_path, *options, stdout=subprocess.PIPE):
    """`jaxlint --confirm slow.py` in a new session, with TMPDIR a folder of its own: (proc, tmp)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (tmp_path / "slow.py").write_text(SLOW)
    env = {**os.environ, "TMPDIR": str(tmp), "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "--no-cache", "--confirm", *options, "slow.py"],
                            cwd=tmp_path, env=env, stdout=stdout, stderr=subprocess.PIPE,
                            start_new_session=True)
    return proc, tmp


def _wait_for_user_code(proc) -> set[int]:
    """The pids below `proc` once the user's code runs in the fork: worker -> fork -> the
    sleeping child."""
    deadline = time.monotonic() + 90
    seen: set[int] = set()
    while time.monotonic() < deadline:
        seen |= set(descendants(proc.pid))
        if len(seen) >= 3:
            break
        time.sleep(0.1)
    assert len(seen) >= 3, "the worker, its fork and the user's child did not start"
    return seen


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum, exit_code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_during_confirm_leaves_nothing(tmp_path, signum, exit_code):
    proc, tmp = _confirm_slow(tmp_path)
    try:
        seen = _wait_for_user_code(proc)
        time.sleep(0.3)
        seen |= set(descendants(proc.pid))
        os.kill(proc.pid, signum)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == exit_code, err.decode()
    assert "Traceback" not in err.decode()
    time.sleep(0.2)
    assert alive(seen) == []
    assert list(tmp.iterdir()) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_closed_pipe_during_confirm_leaves_nothing(tmp_path):
    # `jaxlint --confirm slow.py | head -0`: the reader is gone while the user's code runs.
    read, write = os.pipe()
    proc, tmp = _confirm_slow(tmp_path, "--confirm-timeout", "8", stdout=write)
    os.close(write)
    try:
        seen = _wait_for_user_code(proc)
        os.close(read)
        _, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in err.decode(), err.decode()
    # A loaded machine may take a moment to end what was killed; the user's child sleeps 600 s.
    deadline = time.monotonic() + 5
    while alive(seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(seen) == []
    assert list(tmp.iterdir()) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_jaxlint_killed_outright_leaves_nothing(tmp_path):
    # SIGKILL (a killed CI job, `timeout -s KILL`) gives jaxlint no chance to clean up: the
    # worker, in a session of its own, learns of it from the kernel and ends what it started.
    proc, tmp = _confirm_slow(tmp_path)
    try:
        seen = _wait_for_user_code(proc)
        time.sleep(0.3)
        seen |= set(descendants(proc.pid))
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 10
    while (alive(seen) or list(tmp.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(seen) == []
    assert list(tmp.iterdir()) == []
