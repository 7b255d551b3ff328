"""The project around a file: where x64 is turned on for the whole program (JAX702)."""

from __future__ import annotations

import textwrap

import pytest

from jaxlint.config import Settings
from jaxlint.engine import project
from jaxlint.linter import lint_file

MODEL = textwrap.dedent("""\
    import jax.numpy as jnp

    total = jnp.zeros((), dtype=jnp.float64)
    """)
ENABLE = 'import jax\njax.config.update("jax_enable_x64", True)\n'


@pytest.fixture(autouse=True)
def _fresh_cache():
    project.project_root.cache_clear()
    project._facts.cache_clear()


def _write(root, files: dict[str, str]):
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _codes(root, name: str) -> list[str]:
    return [f.code for f in lint_file(str(root / name), Settings(root=str(root))).findings]


def test_alone_the_request_is_reported(tmp_path):
    _write(tmp_path, {"pyproject.toml": "", "pkg/model.py": MODEL})
    assert _codes(tmp_path, "pkg/model.py") == ["JAX702"]


@pytest.mark.parametrize("files", [
    {"tests/conftest.py": ENABLE},
    {"pkg/__init__.py": ENABLE},
    {"train.py": ENABLE + "from pkg import model\n"},  # the launcher sets x64, then imports
    {"pkg/setup_x64.py": ENABLE},  # imported by the module below
    {"README.md": "Run with `JAX_ENABLE_X64=1 python train.py`.\n"},
    {"pkg/README.md": "Set `JAX_ENABLE_X64=1` before running the model.\n"},
    {"scripts/run.sh": "export JAX_ENABLE_X64=True\npython -m pkg.model\n"},
    {"pkg/env.py": 'import os\nos.environ["JAX_ENABLE_X64"] = "1"\nimport model\n'},
    {"main.py": ENABLE + "import trainer\n", "trainer.py": "from pkg import model\n"},  # imported through another
])
def test_x64_enabled_for_the_program_elsewhere(tmp_path, files):
    model = MODEL if "setup_x64" not in str(files) else "import setup_x64\n" + MODEL
    _write(tmp_path, {"pyproject.toml": "", "pkg/model.py": model, **files})
    assert _codes(tmp_path, "pkg/model.py") == []


@pytest.mark.parametrize("files", [
    {"scripts/other_experiment.py": ENABLE},  # an unrelated script: another program
    {"other.ipynb": '{"cells": [{"source": ["' + ENABLE.replace('"', '\\"').replace("\n", "\\n") + '"]}]}'},
    {"README.md": 'You may call `jax.config.update("jax_enable_x64", True)`.\n'},  # advice, not a setting
    # A doc speaks for its own folder: notes on another experiment's `.envrc`.
    {"benchmarks/NOTES.md": "The other repository exports `JAX_ENABLE_X64=true` in `.envrc`.\n"},
    {"tests/conftest.py": 'import jax\njax.config.update("jax_enable_x64", False)\n'},
])
def test_x64_not_enabled_for_this_program(tmp_path, files):
    _write(tmp_path, {"pyproject.toml": "", "pkg/model.py": MODEL, **files})
    assert _codes(tmp_path, "pkg/model.py") == ["JAX702"]


def test_root_without_marker_stops_at_a_folder_of_projects(tmp_path):
    # A corpus of checkouts without metadata: repo_a's conftest says nothing about repo_b.
    _write(tmp_path, {"repo_a/conftest.py": ENABLE, "repo_a/x.py": MODEL,
                      "repo_b/setup_notes.txt": "", "repo_b/lib/model.py": MODEL})
    assert _codes(tmp_path, "repo_a/x.py") == []
    assert _codes(tmp_path, "repo_b/lib/model.py") == ["JAX702"]
    assert project.project_root(str(tmp_path / "repo_b" / "lib"), str(tmp_path)) == str(tmp_path / "repo_b")


@pytest.mark.parametrize("files,codes", [
    ({"src/pkg/sub/times.py": ENABLE, "src/pkg/sub/model.py": "from pkg.sub.times import t\n" + MODEL}, []),
    ({"src/pkg/cli/run.py": ENABLE + "from pkg.sub import model\n", "src/pkg/sub/model.py": MODEL}, []),
    ({"src/pkg/cli/run.py": ENABLE + "from pkg.sub import other\n", "src/pkg/sub/model.py": MODEL}, ["JAX702"]),
])
def test_src_layout_without_project_file(tmp_path, files, codes):
    # The root found is the package folder itself (`src/` holds no files): its modules
    # are still imported as `pkg.sub.model`.
    _write(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/sub/__init__.py": "", "src/pkg/cli/__init__.py": "",
                      "src/pkg/sub/other.py": "", **files})
    assert project.project_root(str(tmp_path / "src" / "pkg" / "sub"), str(tmp_path)) == str(tmp_path / "src" / "pkg")
    assert _codes(tmp_path, "src/pkg/sub/model.py") == codes


def test_notebook_enabling_x64_with_a_magic(tmp_path):
    import json

    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": src}
             for src in ("%env JAX_ENABLE_X64=1", MODEL)]
    (tmp_path / "nb.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                   "nbformat_minor": 5}))
    assert _codes(tmp_path, "nb.ipynb") == []


def test_a_fifo_in_the_project_is_not_read(tmp_path):
    import os

    _write(tmp_path, {"pyproject.toml": "", "pkg/model.py": MODEL})
    os.mkfifo(tmp_path / "pkg" / "pipe.py")  # opening it for reading would block
    assert _codes(tmp_path, "pkg/model.py") == ["JAX702"]
