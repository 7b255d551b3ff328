"""A removed JAX name (JAX9xx) is confirmed where the line is reached: it runs, or its function
is used somewhere in the project. A function nothing uses never runs: "not reproduced", with the
name's absence from the installed jax as evidence (the ledger's JAXFLUIDS false findings)."""

from __future__ import annotations

import pytest

from jaxlint.finding import Finding

pytest.importorskip("jax")

HELPERS = '''import jax


def shard(buffer):
    return jax.device_put_sharded([buffer], devices=jax.devices()[:1])  # DEAD


def tree_copy(x):
    return jax.tree_map(lambda a: a, x)  # USED elsewhere


def runs(x):
    return jax.tree_map(lambda a: a + 1, x)  # RUNS at import


try:
    runs([1.0])
except AttributeError:
    pass
'''

OTHER = '''from pkg.helpers import shard, tree_copy  # an import is no use


def step(x):
    return tree_copy(x)
'''


@pytest.fixture(scope="module")
def got(tmp_path_factory):
    from confirm_table import verdicts_by_name

    root = tmp_path_factory.mktemp("project")
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    path = root / "pkg" / "helpers.py"
    path.write_text(HELPERS)
    (root / "pkg" / "other.py").write_text(OTHER)
    lines = HELPERS.splitlines()

    def finding(marker, function, code, removed):
        line = next(i for i, t in enumerate(lines, 1) if marker in t)
        fline = next(i for i, t in enumerate(lines, 1) if f"def {function}(" in t)
        return Finding(path=str(path), line=line, col=12, end_line=line, end_col=30, code=code,
                       message="", function=function, function_line=fline,
                       confirm={"kind": "removed-api", "removed": removed})

    return verdicts_by_name({
        "dead": finding("# DEAD", "shard", "JAX908", "jax.device_put_sharded"),
        "used": finding("# USED", "tree_copy", "JAX901", "jax.tree_map"),
        "runs": finding("# RUNS", "runs", "JAX901", "jax.tree_map"),
    })


def test_a_removed_name_in_a_function_nothing_uses_is_not_confirmed(got):
    v = got["dead"]
    assert v["verdict"] == "not reproduced", v
    assert "nothing in the project calls shard" in v["summary"], v
    assert "has no jax.device_put_sharded" in v["evidence"], v  # the observed absence


def test_a_removed_name_in_a_function_used_elsewhere_is_confirmed(got):
    v = got["used"]
    assert v["verdict"] == "confirmed", v
    assert "used at pkg/other.py:5" in v["evidence"], v


def test_a_removed_name_on_a_line_that_ran_is_confirmed(got):
    v = got["runs"]
    assert v["verdict"] == "confirmed", v
    assert "did not run here" not in v["evidence"], v
