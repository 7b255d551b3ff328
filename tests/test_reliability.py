"""Issue 12: signals, hostile files, the cache and output at scale.

Each test reproduces one reported failure with real input: real processes get
real signals, libcst really parses (and really crashes on) the hostile files.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from jaxlint.cache import Cache, KEEP_RESULT_FILES, settings_key
from jaxlint.config import ConfigError, Settings, load_settings, load_table
from jaxlint.finding import Finding
from jaxlint.formats import FORMATS, FormatContext
from jaxlint.linter import lint_file, lint_text
from jaxlint.source import read_source, source_lines
from proc_tree import alive, children

ROOT = Path(__file__).resolve().parent.parent

BAD = textwrap.dedent("""\
    import jax


    @jax.jit
    def f(x):
        if x > 0:
            return x
        return -x
""")
BAD_LINE = 6  # the `if` in BAD


def run(*args, cwd, stdin=None, env=None, timeout=60, text=True):
    full_env = dict(os.environ, PYTHONPATH=str(ROOT))
    full_env.pop("JAXLINT_CACHE_DIR", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=text, env=full_env, timeout=timeout)


def codes(result) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in result.findings)


# ------------------------------------------------------------------ signals
def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _wait_for(predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out waiting")


@pytest.fixture
def slow_project(tmp_path):
    """Files that take seconds each to lint, so `-j 2` workers are busy when the signal comes."""
    fixtures = "".join(p.read_text() for p in sorted((ROOT / "fixtures").glob("*.py")))
    for i in range(3):
        (tmp_path / f"big{i}.py").write_text(fixtures * 20)
    return tmp_path


def _start(args, cwd, env=None):
    full_env = dict(os.environ, PYTHONPATH=str(ROOT))
    full_env.update(env or {})
    # Its own session: a signal to its process group reaches jaxlint and its workers
    # only, as Ctrl-C in a terminal reaches the foreground group.
    return subprocess.Popen([sys.executable, "-m", "jaxlint", *args], cwd=cwd, env=full_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


@pytest.mark.parametrize("signum, to_group, exit_code", [
    (signal.SIGTERM, False, 143),
    (signal.SIGINT, False, 130),
    (signal.SIGINT, True, 130),  # Ctrl-C: the whole foreground group gets it
])
def test_a_signal_stops_the_workers_without_a_traceback(slow_project, signum, to_group, exit_code):
    proc = _start(["--no-cache", "-j", "2", "."], slow_project)
    try:
        workers = _wait_for(lambda: len(children(proc.pid)) >= 2 and children(proc.pid))
        (os.killpg if to_group else os.kill)(proc.pid, signum)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == exit_code
    assert "Traceback" not in err.decode() and "Aborted" not in err.decode()
    time.sleep(0.1)
    assert alive(workers) == []


def test_sigterm_during_confirm_kills_its_worker_and_removes_the_folder(tmp_path):
    pytest.importorskip("jax")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # Confirm mode imports the module: this one hangs at import, so the worker is busy.
    (tmp_path / "hangs.py").write_text("import time\ntime.sleep(600)\n" + BAD)
    proc = _start(["--no-cache", "--confirm", "hangs.py"], tmp_path, env={"TMPDIR": str(tmp)})
    try:
        worker = _wait_for(lambda: [p for p in children(proc.pid)
                                    if "jaxlint.confirm.worker" in _cmdline(p)], timeout=60)
        assert [p.name for p in tmp.iterdir() if p.name.startswith("jaxlint-confirm-")]
        os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143
    assert "Traceback" not in err.decode()
    time.sleep(0.1)
    assert alive(worker) == []
    assert list(tmp.iterdir()) == []


# ------------------------------------------------------- hostile input: parser
def _segfault():
    os.kill(os.getpid(), signal.SIGSEGV)


# Other tests import jax into this process, and jax warns on every fork; these
# children run only builtins. (jaxlint itself never imports jax where it forks.)
@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")
def test_isolated_returns_the_result_or_says_what_went_wrong():
    from jaxlint.processes import IsolationFailed, isolated

    assert isolated(pow, 2, 10, timeout=10) == 1024
    with pytest.raises(IsolationFailed, match=r"crashed on this file \(SIGSEGV\)") as crash:
        isolated(_segfault, timeout=10)
    assert not crash.value.raised
    start = time.monotonic()
    with pytest.raises(IsolationFailed, match="took longer than"):
        isolated(time.sleep, 30, timeout=0.5)
    assert time.monotonic() - start < 5
    with pytest.raises(IsolationFailed, match="ValueError: invalid literal") as raised:
        isolated(int, "x", timeout=10)
    assert raised.value.raised


def _sleep_then(seconds: float) -> str:
    time.sleep(seconds)
    return "done"


def _spin() -> None:
    while True:
        pass


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")
def test_the_time_limit_counts_the_childs_own_cpu_time():
    # On a loaded machine a file's analysis waits for the CPU: the limit is on the CPU time
    # the child uses, so waiting past it costs no finding; a child that spins is stopped,
    # and one that hangs without using the CPU is stopped by the wall clock (4 x the limit).
    from jaxlint.processes import WALL_FACTOR, IsolationFailed, cpu_seconds, isolated

    if cpu_seconds(os.getpid()) is None:
        pytest.skip("the system does not show a process's CPU time")
    assert isolated(_sleep_then, 1.0, timeout=0.5) == "done"  # waited 1 s, used ~0 s of CPU
    start = time.monotonic()
    with pytest.raises(IsolationFailed, match="took longer than"):
        isolated(_spin, timeout=0.5)
    assert time.monotonic() - start < WALL_FACTOR * 0.5 + 1
    start = time.monotonic()
    with pytest.raises(IsolationFailed, match="took longer than"):
        isolated(time.sleep, 30, timeout=0.5)
    assert WALL_FACTOR * 0.5 - 0.1 < time.monotonic() - start < WALL_FACTOR * 0.5 + 2


def _and_chain(n: int) -> str:
    return "import jax\nx = " + " and ".join(["a"] * n) + "\n"


def test_libcst_crash_on_stdin_is_one_diagnostic(tmp_path):
    r = run("--no-cache", "-", cwd=tmp_path, stdin=_and_chain(8000))
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == "-: E902 the parser crashed on this file (SIGSEGV); skipped"
    assert "Traceback" not in r.stderr


def test_libcst_crash_costs_one_file(tmp_path):
    (tmp_path / "hostile.py").write_text(_and_chain(8000))
    (tmp_path / "bad.py").write_text(BAD)
    r = run("--no-cache", "--output-format", "concise", ".", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.startswith(f"bad.py:{BAD_LINE}:8: JAX201 ")
    assert "hostile.py: E902 the parser crashed on this file" in r.stderr


def test_flake8_plugin_survives_a_libcst_crash(tmp_path):
    pytest.importorskip("flake8")
    (tmp_path / "hostile.py").write_text(_and_chain(8000))
    (tmp_path / "bad.py").write_text(BAD)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for target in ("hostile.py", "."):  # one file (in-process) and a directory (flake8's pool)
        r = subprocess.run([sys.executable, "-m", "flake8", "--select", "JAX", target], cwd=tmp_path,
                           capture_output=True, text=True, env=env, timeout=60)
        assert r.returncode == 1, r.stderr
        assert ("hostile.py:1:1: JAX000 jaxlint cannot analyse this file: the parser crashed "
                "on this file (SIGSEGV); skipped") in r.stdout
        assert ("bad.py" in r.stdout) == (target == ".")


def test_deep_nesting_degrades_per_function_not_per_file(tmp_path):
    # 150 nested lists in one function overflow libcst's recursive position pass;
    # the finding in another function must survive, with its true line.
    n = 150
    deep = "import jax\n\ndef deep(x):\n    return " + "[" * n + "x" + "]" * n + "\n\n" + BAD[len("import jax\n"):]
    path = tmp_path / "deep.py"
    path.write_text(deep)
    result = lint_file(str(path), Settings())
    assert result.diagnostics == []
    assert codes(result) == [(BAD_LINE + 4, "JAX201")]


def test_objects_whose_methods_call_each_other_back_lose_no_finding(tmp_path):
    # Which class `env` holds is asked of the calls of `Policy.initial`, whose object is a
    # parameter of `Env.initial`, asked of its calls, and so on: a cycle of questions, not
    # deep code. It must end in "not known" (no E902), and the finding in the cycle stays.
    text = (
        "import jax\nimport jax.numpy as jnp\n\n\n"
        "class Env:\n    def initial(self, other, key):\n        return other.initial(self, key)\n\n\n"
        "class Policy:\n    def initial(self, env, key):\n"
        "        state = jnp.zeros(3, dtype=jnp.float64)\n        return env.initial(self, key), state\n")
    path = tmp_path / "cycle.py"
    path.write_text(text)
    result = lint_file(str(path), Settings())
    assert result.diagnostics == []
    assert codes(result) == [(12, "JAX702")]


def test_a_long_elif_chain_keeps_the_other_findings(tmp_path):
    elifs = "def h(x):\n    if x:\n        pass\n" + "    elif x:\n        pass\n" * 600
    path = tmp_path / "elifs.py"
    text = BAD + "\n\n" + elifs + "\n\n" + BAD[len("import jax\n"):]
    path.write_text(text)
    result = lint_file(str(path), Settings())
    assert result.diagnostics == []
    expected = [(i, "JAX201") for i, line in enumerate(text.split("\n"), 1) if "if x > 0" in line]
    assert len(expected) == 2 and codes(result) == expected


def test_a_long_operator_chain_in_one_function_keeps_the_others(tmp_path):
    chain = "@jax.jit\ndef h(x):\n    y = " + " + ".join(["x"] * 900) + "\n    return y\n\n"
    path = tmp_path / "chain.py"
    path.write_text(BAD + "\n\n" + chain)
    result = lint_file(str(path), Settings())
    assert result.diagnostics == []
    assert codes(result) == [(BAD_LINE, "JAX201")]


# --------------------------------------------------------- hostile input: files
def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "x.py")
    (tmp_path / "bad.py").write_text(BAD)
    for cache in ([], ["--no-cache"]):  # with the cache, the main process hashed it
        r = run(*cache, "--output-format", "concise", ".", cwd=tmp_path, timeout=20)
        assert r.returncode == 1
        assert "x.py: E902 is a FIFO, not a regular file; skipped" in r.stderr.splitlines()
        assert r.stdout.startswith("bad.py:")


def test_fix_refuses_a_fifo_without_blocking(tmp_path):
    # --fix reads files itself: through the same reader, so a FIFO is refused, not read.
    os.mkfifo(tmp_path / "x.py")
    (tmp_path / "old.py").write_text("import jax\njax.tree_map(abs, [1])\n")
    r = run("check", "--fix", "--no-cache", ".", cwd=tmp_path, timeout=20)
    assert "x.py: E902 is a FIFO, not a regular file; skipped" in r.stderr
    assert (tmp_path / "old.py").read_text() == "import jax\njax.tree.map(abs, [1])\n"


def test_a_device_named_on_the_command_line_is_refused(tmp_path):
    r = run("--no-cache", "/dev/zero", cwd=tmp_path, timeout=20)
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == "/dev/zero: E902 is a character device, not a regular file; skipped"


def test_a_utf16_cookie_on_utf8_bytes_is_refused(tmp_path):
    data = b"# coding: utf-16\n" + BAD.encode()
    with pytest.raises(SyntaxError):
        compile(data, "x.py", "exec")  # Python refuses it
    text = read_source("x.py", data)
    assert not isinstance(text, str)
    assert text.message.startswith("cannot decode file: encoding problem: utf-16")
    (tmp_path / "x.py").write_bytes(data)
    r = run("--no-cache", "x.py", cwd=tmp_path)
    assert r.returncode == 1 and "E902 cannot decode file: encoding problem: utf-16" in r.stderr


@pytest.mark.parametrize("char", ["\f", "\x1c", "\x85", "\u2028"])
def test_line_numbers_follow_python_not_splitlines(tmp_path, char):
    # The odd character sits in a comment and a string above the finding.
    code = BAD.replace("import jax\n", f"import jax  # a{char}b\ns = 'c{char}d'\n")
    code = code.replace("if x > 0:", "if x > 0:  # noqa: JAX201")
    path = tmp_path / "odd.py"
    path.write_text(code, encoding="utf-8")
    assert lint_file(str(path), Settings()).findings == []  # noqa on the true line suppresses
    unsuppressed = code.replace("  # noqa: JAX201", "")
    path.write_text(unsuppressed, encoding="utf-8")
    result = lint_file(str(path), Settings())
    assert codes(result) == [(BAD_LINE + 1, "JAX201")]
    out = FORMATS["full"](result.findings, [], FormatContext(sources={str(path): unsuppressed}))
    assert f"{BAD_LINE + 1:>4} |     if x > 0:" in out


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_noqa_on_each_line_ending(newline):
    code = BAD.replace("if x > 0:", "if x > 0:  # noqa: JAX201").replace("\n", newline)
    assert lint_text(code, "m.py", Settings()).findings == []
    exempt = ("# jaxlint: noqa\n" + BAD).replace("\n", newline)
    assert lint_text(exempt, "m.py", Settings()).findings == []
    assert codes(lint_text(BAD.replace("\n", newline), "m.py", Settings())) == [(BAD_LINE, "JAX201")]


def test_source_lines_split_where_python_does():
    assert source_lines("a\fb\nc\r\nd\re\x85f\n") == ["a\fb", "c", "d", "e\x85f"]
    assert source_lines("") == [] and source_lines("x") == ["x"] and source_lines("\n\n") == ["", ""]


@pytest.mark.parametrize("fmt", ["concise", "sarif", "full", "github", "json"])
def test_a_file_name_that_is_not_utf8(tmp_path, fmt):
    name = b"bad\xff.py"
    with open(os.path.join(os.fsencode(tmp_path), name), "wb") as fh:
        fh.write(BAD.encode())
    r = run("--no-cache", "--output-format", fmt, ".", cwd=tmp_path, text=False)
    assert r.returncode == 1, r.stderr
    assert b"Traceback" not in r.stderr
    if fmt in ("concise", "full", "github"):
        assert b"bad\xff.py" in r.stdout  # the name's own bytes
    elif fmt == "sarif":
        log = json.loads(r.stdout)
        assert log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] \
            == "bad%FF.py"
    else:
        assert json.loads(r.stdout)[0]["filename"].endswith("bad\udcff.py")


def test_a_symlink_loop_as_first_argument(tmp_path):
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "bad.py").write_text(BAD)
    r = run("--no-cache", "--output-format", "concise", "loop", "bad.py", cwd=tmp_path)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "loop: E902 symbolic link loop; skipped" in r.stderr.splitlines()
    assert r.stdout.startswith("bad.py:")
    assert load_settings(str(tmp_path / "loop")).root == str(tmp_path)


# ------------------------------------------------------------ usage errors
@pytest.mark.parametrize("args", [["-j", "-1"], ["--confirm-timeout", "nan"], ["--confirm-timeout", "inf"],
                                  ["--confirm-timeout", "0"], ["--confirm-timeout", "-1"]])
def test_bad_numbers_are_usage_errors(tmp_path, args):
    (tmp_path / "bad.py").write_text(BAD)
    r = run("--no-cache", *args, "bad.py", cwd=tmp_path)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "Error: Invalid value" in r.stderr


@pytest.mark.parametrize("args", [["--no-cache", "bad.py"], ["rules"], ["rule", "JAX201"]])
def test_a_full_disk_is_one_line(tmp_path, args):
    (tmp_path / "bad.py").write_text(BAD)
    with open("/dev/full", "w") as full:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        r = subprocess.run([sys.executable, "-m", "jaxlint", *args], cwd=tmp_path,
                           stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    assert r.returncode == 2
    assert r.stderr == "jaxlint: error: cannot write the output: No space left on device\n"


# ---------------------------------------------------------------- notebooks
def _notebook(cells, metadata=None, outputs=None) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "source": c, "metadata": {}, "execution_count": None,
                   "outputs": outputs or []} for c in cells],
        "metadata": metadata if metadata is not None else {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_notebook_large_because_of_outputs_is_linted(tmp_path):
    image = {"output_type": "display_data", "metadata": {},
             "data": {"image/png": "A" * (9 * 1024 * 1024)}}
    path = tmp_path / "big.ipynb"
    path.write_text(_notebook([BAD], outputs=[image]))
    assert path.stat().st_size > 8 * 1024 * 1024
    result = lint_file(str(path), Settings())
    assert result.diagnostics == [] and codes(result) == [(BAD_LINE, "JAX201")]


def test_a_notebook_with_too_much_code_is_skipped(tmp_path):
    path = tmp_path / "huge.ipynb"
    path.write_text(_notebook([BAD, "x = 1\n" * (1500 * 1024)]))
    result = lint_file(str(path), Settings())
    assert [d.message for d in result.diagnostics] == ["notebook has more than 8 MiB of code; skipped"]


@pytest.mark.parametrize("metadata", [
    {"kernelspec": "python3"}, {"language_info": ["python"]}, {"language_info": {"name": 3}},
    {"kernelspec": {"language": None}}, "not a table"])
def test_odd_notebook_metadata_means_python(tmp_path, metadata):
    path = tmp_path / "nb.ipynb"
    path.write_text(_notebook([BAD], metadata=metadata))
    result = lint_file(str(path), Settings())
    assert result.diagnostics == [] and codes(result) == [(BAD_LINE, "JAX201")]


def test_a_notebook_on_stdin_is_linted_as_a_notebook(tmp_path):
    r = run("--no-cache", "--output-format", "concise", "--stdin-filename", "x.ipynb", "-",
            cwd=tmp_path, stdin=_notebook(["import jax\n", BAD[len("import jax\n"):]]))
    assert r.returncode == 1
    assert r.stdout.startswith(f"x.ipynb:cell 2:{BAD_LINE - 1}:8: JAX201 ")


# ----------------------------------------------------------------- the cache
@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "m.py").write_text(BAD)
    return tmp_path


def _cache_file(project) -> Path:
    [path] = (project / ".jaxlint_cache").glob("results-*.json")
    return path


@pytest.mark.parametrize("field, value", [
    ("line", "6"), ("col", None), ("code", 201), ("message", ["x"]), ("function", 3),
    ("function_line", "x"), ("confirm", [1]), ("cell", "1"), ("verdict", "yes"), ("line", True),
    ("confirm", {"__tuple__": 5}),
])
def test_cache_entries_of_the_wrong_type_are_ignored(project, field, value):
    first = run("--output-format", "concise", ".", cwd=project)
    path = _cache_file(project)
    data = json.loads(path.read_text())
    [entry] = data["files"].values()
    entry["findings"][0][field] = value
    path.write_text(json.dumps(data))
    again = run("--output-format", "concise", ".", cwd=project)
    assert (again.returncode, again.stdout) == (1, first.stdout)
    assert "Traceback" not in again.stderr


@pytest.mark.parametrize("planted", [
    {"findings": {}, "diagnostics": []}, {"findings": [], "diagnostics": [{"message": 1}]},
    {"findings": [], "diagnostics": [{"message": "m", "path": 5}]},
    {"findings": [7], "diagnostics": []}, {"findings": [], "diagnostics": "no"},
])
def test_planted_cache_entries_are_ignored(project, planted):
    first = run("--output-format", "concise", ".", cwd=project)
    path = _cache_file(project)
    data = json.loads(path.read_text())
    [entry] = data["files"].values()
    entry.update(planted)
    path.write_text(json.dumps(data))
    again = run("--output-format", "concise", ".", cwd=project)
    assert (again.returncode, again.stdout, again.stderr) == (1, first.stdout, first.stderr)


def test_pruning_keeps_the_users_own_results_files(tmp_path):
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    mine = [cache_dir / "results-2024.json", cache_dir / f"results-{'a' * 24}.json"]
    for p in mine:
        p.write_text('{"my": "data"}')
        os.utime(p, (1, 1))  # oldest of all
    (tmp_path / "m.py").write_text(BAD)
    for i in range(KEEP_RESULT_FILES + 2):  # more settings keys than are kept
        settings = Settings(root=str(tmp_path), ignore=(f"JAX{i}",) if i else ())
        cache = Cache(str(cache_dir), settings_key(settings))
        assert cache.get(str(tmp_path / "m.py")) is None
        cache.put(lint_file(str(tmp_path / "m.py"), settings))
        cache.save()
    assert all(p.exists() for p in mine)
    ours = [p for p in cache_dir.glob("results-*.json") if p not in mine]
    assert len(ours) == KEEP_RESULT_FILES


def test_the_cache_key_names_the_python_version(monkeypatch):
    before = settings_key(Settings())
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    assert settings_key(Settings()) != before


def test_a_file_edited_during_the_run_is_cached_under_what_was_analysed(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(BAD)
    settings = Settings(root=str(tmp_path))
    cache = Cache(str(tmp_path / "cache"), settings_key(settings))
    assert cache.get(str(path)) is None  # the main process hashes the old content...
    edited = BAD + "\n\n@jax.jit\ndef g(y):\n    return int(y)\n"
    path.write_text(edited)  # ...the file changes before the worker reads it
    cache.put(lint_file(str(path), settings))
    cache.save()
    path.write_text(BAD)  # back to the old content: must not get the edited file's findings
    fresh = Cache(str(tmp_path / "cache"), settings_key(settings))
    assert fresh.get(str(path)) is None
    path.write_text(edited)
    hit = Cache(str(tmp_path / "cache"), settings_key(settings)).get(str(path))
    assert hit is not None and codes(hit) == codes(lint_file(str(path), settings))


# ----------------------------------------------------------------- config
@pytest.mark.parametrize("table", [
    {"ignore": [""]}, {"select": [" "]}, {"per-file-ignores": {"*.py": [""]}},
    {"extend-select": ["JAX 2"]}, {"ignore": ["JAX9999"]},
])
def test_empty_or_unknown_codes_are_config_errors(tmp_path, table):
    with pytest.raises(ConfigError):
        load_table(table, "pyproject.toml", str(tmp_path))


def test_empty_ignore_in_pyproject_exits_2(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nignore = [""]\n')
    (tmp_path / "bad.py").write_text(BAD)
    r = run("--no-cache", "bad.py", cwd=tmp_path)
    assert r.returncode == 2
    assert len(r.stderr.splitlines()) == 1 and "invalid rule code or prefix ''" in r.stderr


# ----------------------------------------------------------- output at scale
def _many_findings(n: int) -> tuple[list[Finding], str]:
    text = "".join(f"x{i} = 1\n" for i in range(n))
    findings = [Finding("m.py", i + 1, 1, i + 1, 3, "JAX201", "m", "traced-bool-conversion")
                for i in range(n)]
    return findings, text


@pytest.mark.parametrize("fmt", ["full", "sarif"])
def test_formatting_is_linear_in_the_number_of_findings(fmt):
    def seconds(n):
        findings, text = _many_findings(n)
        start = time.perf_counter()
        FORMATS[fmt](findings, [], FormatContext(sources={"m.py": text}))
        return time.perf_counter() - start
    small, large = seconds(2_000), seconds(20_000)
    # Ten times the findings: linear is ~10x; re-splitting the file per finding was ~100x.
    assert large < 30 * small + 0.5, (small, large)
    assert large < 10.0
