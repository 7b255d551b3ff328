"""Where a removed JAX name (JAX9xx) sits in a function the program did not run, confirm mode
looks for the function's users in the project (tests/test_confirm_removed_reach.py). The
ledger's users it used to miss (feedbax, octo): a package with no project marker, whose users
sit outside the package folder; a notebook of the project calling it; a lambda made inside a
used function; a test function, which pytest calls. And the decoys that are still not used:
a lambda nobody reads, a `test_` function outside a test file, a helper of a test file, and a
same-named function of another file that never imports this one (a use elsewhere counts only
through an import of the function, its class or its module)."""

from __future__ import annotations

import json

import pytest

from jaxlint.finding import Finding

pytest.importorskip("jax")

LIB = '''import jax


def schedule(tree):
    return jax.tree_map(lambda a: a, tree)  # NOTEBOOK: only a notebook calls schedule


def tidy(tree, post=None):
    if post is None:
        post = lambda x: jax.tree_map(abs, x)  # LAMBDA READ
    return post(tree)


def spare(tree):
    unused = lambda x: jax.tree_map(abs, x)  # LAMBDA UNREAD
    return tree


def shapes(tree):
    return jax.tree_map(lambda a: a.shape, tree)  # SCRIPT: a script beside the package calls it


def test_shapes_here(tree):
    return jax.tree_map(len, tree)  # NOT A TEST FILE


def step(params):
    return jax.tree_multimap(lambda p: p, params)  # SAME NAME: another file calls its own step


def leaves(tree):
    return jax.tree_leaves(tree)  # MODULE ALIAS: a script calls lib.leaves
'''

SCRIPT_CHAIN = '''import jax


def inner(tree):
    return jax.tree_multimap(lambda a, b: a, tree, tree)  # CHAIN: only unused outer calls inner


def outer(tree):
    return inner(tree)


def main(tree):
    return outer(tree)  # nothing calls main: the script only defines it
'''

SIGNATURES = '''import jax

tree = jax.tree_map(abs, [1])  # the import fails here, before any def below runs


def train(key: jax.random.KeyArray, steps=10):  # ANNOTATION: the def runs at import
    return key


def make():
    def inner(key: jax.random.KeyArray):  # NESTED: only the uncalled make runs this def
        return key
    return inner
'''

AGENT = '''import jax


class Agent:
    def __init__(self, params):
        self.params = jax.tree_map(abs, params)  # REEXPORTED: run_agent.py imports Agent from pkg


class Unexported:
    def __init__(self, params):
        self.params = jax.tree_map(abs, params)  # NOT REEXPORTED: pkg does not import it
'''

RUN_AGENT = '''from pkg import Agent, Unexported  # the package re-exports Agent only

Agent([1])
Unexported([1])
'''

OTHER = '''def step(params):
    return params


step({})
'''

ALIAS = '''import pkg.sub.lib as L

L.leaves([1])
'''

SCRIPT = '''from pkg.sub.lib import shapes, spare, test_shapes_here  # imports are no use

print(shapes)
spare([1])
'''

TEST = '''import jax


def check(tree):
    return jax.tree_leaves(tree)  # TEST HELPER: nothing calls it


def test_leaves():
    assert jax.tree_leaves([1, 2]) == [1, 2]  # PYTEST
'''

NOTEBOOK = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1,
                       "source": ["from pkg.sub.lib import schedule, tidy\n",
                                  "schedule({'a': 1})\n", "tidy([1])\n"]}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _finding(path, text, marker, function, removed, lambda_=False):
    lines = text.splitlines()
    line = next(i for i, t in enumerate(lines, 1) if marker in t)
    outer = function.split(".")[0]
    fline = line if lambda_ else next(i for i, t in enumerate(lines, 1) if f"def {outer}(" in t)
    return Finding(path=str(path), line=line, col=1, end_line=line, end_col=1, code="JAX901",
                   message="", function=function, function_line=fline,
                   confirm={"kind": "removed-api", "removed": removed})


@pytest.fixture(scope="module")
def got(tmp_path_factory):
    from confirm_table import verdicts_by_name

    # No pyproject.toml, setup.py or .git: a corpus extract, or a folder of scripts.
    root = tmp_path_factory.mktemp("nomarker")
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("from pkg.agent import Agent  # Unexported stays in agent\n")
    agent = root / "pkg" / "agent.py"
    agent.write_text(AGENT)
    (root / "run_agent.py").write_text(RUN_AGENT)
    (root / "pkg" / "sub" / "__init__.py").write_text("")
    lib = root / "pkg" / "sub" / "lib.py"
    lib.write_text(LIB)
    (root / "run.py").write_text(SCRIPT)
    (root / "other.py").write_text(OTHER)
    (root / "alias.py").write_text(ALIAS)
    (root / "scripts").mkdir()
    chain = root / "scripts" / "chain.py"
    chain.write_text(SCRIPT_CHAIN)
    signatures = root / "scripts" / "signatures.py"
    signatures.write_text(SIGNATURES)
    (root / "examples").mkdir()
    (root / "examples" / "demo.ipynb").write_text(json.dumps(NOTEBOOK))
    (root / "tests").mkdir()
    test = root / "tests" / "test_lib.py"
    test.write_text(TEST)
    return verdicts_by_name({
        "notebook": _finding(lib, LIB, "# NOTEBOOK", "schedule", "jax.tree_map"),
        "lambda read": _finding(lib, LIB, "# LAMBDA READ", "tidy.<locals>.<lambda>",
                                "jax.tree_map", lambda_=True),
        "lambda unread": _finding(lib, LIB, "# LAMBDA UNREAD", "spare.<locals>.<lambda>",
                                  "jax.tree_map", lambda_=True),
        "script": _finding(lib, LIB, "# SCRIPT", "shapes", "jax.tree_map"),
        "not a test file": _finding(lib, LIB, "# NOT A TEST FILE", "test_shapes_here",
                                    "jax.tree_map"),
        "test helper": _finding(test, TEST, "# TEST HELPER", "check", "jax.tree_leaves"),
        "pytest": _finding(test, TEST, "# PYTEST", "test_leaves", "jax.tree_leaves"),
        "same name": _finding(lib, LIB, "# SAME NAME", "step", "jax.tree_multimap"),
        "module alias": _finding(lib, LIB, "# MODULE ALIAS", "leaves", "jax.tree_leaves"),
        "script chain": _finding(chain, SCRIPT_CHAIN, "# CHAIN", "inner", "jax.tree_multimap"),
        "reexported": _finding(agent, AGENT, "# REEXPORTED", "Agent.__init__", "jax.tree_map", lambda_=True),
        "not reexported": _finding(agent, AGENT, "# NOT REEXPORTED", "Unexported.__init__", "jax.tree_map",
                                   lambda_=True),
        "annotation": _finding(signatures, SIGNATURES, "# ANNOTATION", "train", "jax.random.KeyArray"),
        "nested annotation": _finding(signatures, SIGNATURES, "# NESTED", "make.<locals>.inner",
                                      "jax.random.KeyArray", lambda_=True),
    })


def test_a_notebook_of_the_project_is_a_user(got):
    v = got["notebook"]
    assert v["verdict"] == "confirmed", v
    assert "schedule is used at examples/demo.ipynb:2" in v["evidence"], v


def test_users_outside_a_package_without_a_marker_are_found(got):
    # The package's importers sit above its top folder (run.py), not inside pkg/sub.
    v = got["script"]
    assert v["verdict"] == "confirmed", v
    assert "used at run.py:3" in v["evidence"], v


def test_a_lambda_read_later_in_a_used_function_is_used(got):
    v = got["lambda read"]
    assert v["verdict"] == "confirmed", v
    assert "calls tidy, where the lambda is post read at line" in v["evidence"], v


def test_a_lambda_nothing_reads_is_not_used(got):
    # run.py calls `spare`, but `spare` never reads its lambda: it is made and dropped.
    v = got["lambda unread"]
    assert v["verdict"] == "not reproduced", v
    assert "the lambda is not passed on or read where it is made" in v["evidence"], v


def test_pytest_calls_a_test_function_of_a_test_file(got):
    v = got["pytest"]
    assert v["verdict"] == "confirmed", v
    assert "pytest, which collects test_leaves from test_lib.py" in v["evidence"], v


def test_a_test_files_helper_nothing_calls_is_not_used(got):
    assert got["test helper"]["verdict"] == "not reproduced", got["test helper"]


def test_a_test_named_function_outside_a_test_file_is_not_collected(got):
    assert got["not a test file"]["verdict"] == "not reproduced", got["not a test file"]


def test_a_same_named_function_of_another_file_is_not_a_user(got):
    # other.py defines and calls its own `step` and never imports lib: lib.step never runs.
    v = got["same name"]
    assert v["verdict"] == "not reproduced", v


def test_a_call_through_the_modules_alias_is_a_use(got):
    v = got["module alias"]
    assert v["verdict"] == "confirmed", v
    assert "leaves is used at alias.py:3" in v["evidence"], v


def test_a_scripts_function_used_only_by_functions_nothing_calls_is_not_used(got):
    # inner <- outer <- main, and the script never calls main: none of them runs.
    v = got["script chain"]
    assert v["verdict"] == "not reproduced", v


def test_an_annotation_of_a_def_runs_with_the_def(got):
    # The import stops earlier and nothing calls train, but its parameter's annotation is
    # evaluated when the `def` runs, at import: once the earlier line is fixed, the script
    # fails there whether train is called or not.
    v = got["annotation"]
    assert v["verdict"] == "confirmed", v
    assert "has no jax.random.KeyArray" in v["summary"], v


def test_an_annotation_of_a_def_inside_an_uncalled_function_never_runs(got):
    v = got["nested annotation"]
    assert v["verdict"] == "not reproduced", v
    assert "nothing in the project calls make" in v["summary"], v


def test_a_class_imported_through_its_packages_reexport_is_used(got):
    # run_agent.py says `from pkg import Agent`: pkg/__init__.py imports it from pkg.agent.
    v = got["reexported"]
    assert v["verdict"] == "confirmed", v
    assert "used at run_agent.py:3" in v["evidence"], v


def test_a_class_the_package_does_not_reexport_is_not_used_through_it(got):
    v = got["not reexported"]
    assert v["verdict"] == "not reproduced", v
