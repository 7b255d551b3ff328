"""JAX901-JAX909: removed, deprecated and unknown JAX names, each checked against the installed JAX."""

from __future__ import annotations

import importlib
import textwrap

import pytest

from jaxlint import jax_api
from jaxlint.linter import lint_string

jax = pytest.importorskip("jax")


def codes(src: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_string(textwrap.dedent(src), select=["JAX90", "JAX303"])]


@pytest.mark.parametrize("qualname", sorted(jax_api.REMOVED_APIS))
def test_every_removed_name_is_gone(qualname):
    from jaxlint.api_changes import removed_at

    if not removed_at(jax_api.REMOVED_APIS[qualname], jax.__version__):
        pytest.skip(f"removed after the installed jax {jax.__version__}")
    module, _, attr = qualname.rpartition(".")
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return  # the whole module is gone (jaxlib.xla_extension)
    assert not hasattr(mod, attr), f"{qualname} still exists"


_WARNS = """
import importlib, json, sys, warnings
silent = []
for qualname in json.loads(sys.argv[1]):
    module, _, attr = qualname.rpartition(".")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(importlib.import_module(module), attr)
    if not any(issubclass(w.category, DeprecationWarning) for w in caught):
        silent.append(qualname)
print(json.dumps(silent))
"""


def test_every_deprecated_name_warns():
    """JAX906 reports only what JAX itself deprecates: reading the name warns. JAX
    warns once per process (its deprecation getattr is cached), so a fresh one reads
    each name for the first time."""
    import json
    import os
    import subprocess
    import sys

    from jaxlint.api_changes import deprecated_at

    names = sorted(q for q, api in jax_api.REMOVED_APIS.items() if deprecated_at(api, jax.__version__))
    if not names:
        pytest.skip(f"nothing is deprecated in the installed jax {jax.__version__}")
    out = subprocess.run([sys.executable, "-c", _WARNS, json.dumps(names)], capture_output=True,
                         text=True, timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


def test_pmap_is_not_reported_as_deprecated():
    assert codes("""
        import jax
        f = jax.pmap(lambda x: x)
        """) == []


@pytest.mark.parametrize("qualname", sorted(jax_api.REMOVED_APIS))
def test_every_replacement_exists(qualname):
    import re
    import jax.numpy as jnp  # noqa: F401 - the replacements say `jnp.`
    for name in re.findall(r"`((?:jax|jnp)\.[\w.]+)", jax_api.REMOVED_APIS[qualname].replacement):
        parts = name.split("(")[0].split(".")
        for i in range(len(parts), 1, -1):  # `jax.extend.backend` must be imported explicitly
            try:
                importlib.import_module(".".join(parts[:i]))
                break
            except ImportError:
                continue
        obj = eval(name.split("(")[0], {"jax": jax, "jnp": jnp})
        assert obj is not None


def test_config_module_is_gone_but_attribute_works():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("jax.config")
    from jax import config
    assert config is jax.config


def test_tree_util_names_still_exist():
    import jax.tree_util as tu
    for name in ("tree_map", "tree_leaves", "tree_flatten", "tree_unflatten", "tree_structure"):
        assert hasattr(tu, name)


def test_tree_aliases_through_imports():
    src = """
    import jax
    import jax as j
    from jax import tree_map, tree_util
    from jax.tree_util import tree_multimap
    a = j.tree_leaves({})
    b = jax.tree_util.tree_map(abs, [1])
    c = tree_util.tree_leaves([1])
    """
    assert codes(src) == [(4, "JAX901"), (5, "JAX901"), (6, "JAX901")]


def test_local_names_and_shims_are_silent():
    src = """
    import jax

    def tree_map(f, t):
        return [f(x) for x in t]

    tree_map(abs, [1])
    if not hasattr(jax, "tree_map"):
        jax.tree_map = jax.tree.map
    try:
        from jax.config import config
    except ImportError:
        config = jax.config
    fn = jax.tree_map if jax.__version_info__ < (0, 6) else jax.tree.map
    """
    assert codes(src) == []


def test_config_imports():
    src = """
    import jax
    from jax.config import config
    import jax.config
    from jax import config as cfg
    jax.config.update("jax_enable_x64", False)
    """
    assert codes(src) == [(3, "JAX902"), (4, "JAX902")]


def test_numpy_aliases_resolve_through_imports():
    src = """
    import numpy as np
    import jax.numpy as jnp
    from jax.numpy import sometrue
    np.prod([1, 2])
    jnp.cumproduct(jnp.ones(2))
    """
    assert codes(src) == [(4, "JAX903"), (6, "JAX903")]


def test_device_array_and_xla_computation():
    src = """
    import jax
    import jax.numpy as jnp
    from jax.interpreters import xla
    isinstance(1, (jnp.DeviceArray, xla.DeviceArray))
    jax.xla_computation(abs)
    """
    assert codes(src) == [(5, "JAX904"), (5, "JAX904"), (6, "JAX905")]


def test_messages_name_version_and_fix():
    src = "import jax\njax.tree_map(abs, [1])\n"
    (f,) = lint_string(src, select=["JAX901"])
    assert "JAX 0.6.0" in f.message and "AttributeError" in f.message and "`jax.tree.map`" in f.message


def test_version_guards_beyond_if():
    """A removed name behind a feature check bound to a name, on the right of `and`, after
    an early `return` / skip, or in a test skipped by a version check, never runs on JAX
    versions without it."""
    src = """
    import jax
    import pytest
    import unittest

    _HAS_OLD = hasattr(jax, "tree_map")
    if _HAS_OLD:
        jax.tree_map(abs, [1])
    fn = "tree_map" in dir(jax) and jax.tree_map

    def old(t):
        if not hasattr(jax, "tree_map"):
            return t
        return jax.tree_map(abs, t)

    @pytest.mark.skipif(jax.__version_info__ >= (0, 6), reason="removed")
    def test_old():
        jax.tree_map(abs, [1])

    class T(unittest.TestCase):
        def test_old(self):
            if jax.__version_info__ >= (0, 6):
                self.skipTest("removed")
            jax.tree_map(abs, [1])

    def needs_new():
        if jax.__version_info__ < (0, 4):
            raise ImportError("jax too old")
        return jax.tree_map(abs, [1])
    """
    # A plain `raise` is no fallback: the program fails there as well.
    assert codes(src) == [(29, "JAX901")]


# JAX909: names a recorded JAX module does not have ------------------------------

def test_namespace_table_matches_installed_jax():
    """Every recorded name resolves in the installed jax (an attribute, maybe through a
    deprecation shim, or an importable submodule), and the table is the generator's output."""
    import warnings

    from jaxlint import jax_namespace

    if jax.__version__ != jax_namespace.table_version():
        pytest.skip(f"table made from jax {jax_namespace.table_version()}, installed {jax.__version__}")
    for module in jax_namespace.MODULES:
        mod = importlib.import_module(module)
        for name in jax_namespace.names(module):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                present = hasattr(mod, name)
            assert present or importlib.util.find_spec(f"{module}.{name}") is not None, f"{module}.{name}"
    version, names, removed = jax_namespace._generate()
    assert {m: frozenset(n) for m, n in names.items()} == jax_namespace._table()[1]
    assert removed == jax_namespace._table()[2]


def test_unknown_names_through_imports():
    src = """
    import jax
    import jax.numpy as jnp
    from jax import random
    from jax import numpy as np
    from jax.nn import relu, cross_entropy
    random.normals(random.key(0), (2,))
    np.logsumexp(jnp.ones(2))
    jnp.linalg.norm(jnp.ones(2))
    jax.scipy.optimize.minimize
    jax.lax.Precision.HIGHEST
    jnp._private_helper
    jnp.alltrue(jnp.ones(2))

    def f(random):
        return random.normals

    def g():
        jnp = object()
        return jnp.whatever
    """
    assert codes(src) == [(6, "JAX909"), (7, "JAX909"), (8, "JAX909"), (13, "JAX903")]


def test_unknown_names_only_at_the_tables_release_line():
    from jaxlint.config import Settings
    from jaxlint.linter import lint_string as lint

    src = "import jax\njax.nn.cross_entropy_with_logits(jax.numpy.ones(2))\n"
    assert [f.code for f in lint(src, settings=Settings(select=("JAX909",), target_jax_version="0.10.0"))] \
        == ["JAX909"]
    for older_or_newer in ("0.4.30", "0.9.2", "0.11.0"):
        assert lint(src, settings=Settings(select=("JAX909",), target_jax_version=older_or_newer)) == []


def _tabled_names_of_recorded_modules():
    from jaxlint import jax_namespace

    return sorted(q for q in jax_api.REMOVED_APIS if jax_namespace.names(q.rpartition(".")[0]) is not None)


@pytest.mark.parametrize("qualname", _tabled_names_of_recorded_modules())
def test_a_tabled_name_is_reported_by_one_rule(qualname):
    """A removed name in a module JAX909 checks is reported once, by its removed-API rule
    with the release that removed it, at the attribute and at the import."""
    from jaxlint.api_changes import removed_at

    api = jax_api.REMOVED_APIS[qualname]
    if not removed_at(api, jax.__version__):
        pytest.skip(f"removed after the installed jax {jax.__version__}")
    module, _, name = qualname.rpartition(".")
    src = f"import {module}\nprint({qualname})\nfrom {module} import {name}\n"
    found = lint_string(src, select=["JAX"])
    assert [(f.line, f.code) for f in found] == [(2, found[0].code), (3, found[0].code)]
    assert found[0].code != "JAX909"
    if api.removed_in:
        assert all(f"removed in JAX {api.removed_in}" in f.message for f in found)


def test_a_removed_name_the_file_restores_is_not_reported():
    src = """
    import jax
    import jax.numpy as jnp

    jax.lax.tie_in = lambda x, y: y
    setattr(jax.nn, "normalize", jax.nn.standardize)
    print(jax.lax.tie_in(1, jnp.ones(2)), jax.nn.normalize(jnp.ones(2)))
    """
    assert codes(src) == []


def test_unknown_name_messages():
    def message(src):
        (f,) = lint_string(src, select=["JAX909"])
        return f.message

    assert "did you mean `jax.random.normal`?" in message("import jax\njax.random.normals\n")
    assert "did you mean `jax.nn.logsumexp`?" in message("import jax.numpy as jnp\njnp.logsumexp\n")
    assert "Use jax.numpy.trunc instead" in message("import jax.numpy as jnp\njnp.fix\n")
    assert "check the JAX API reference" in message("import jax\njax.nn.cross_entropy_with_logits\n")
    assert "ImportError" in message("from jax.nn import softmax_cross_entropy\n")
    assert "ModuleNotFoundError" in message("import jax.numoy as jnp\n")


def test_unknown_names_set_by_the_file_or_never_run():
    src = """
    from __future__ import annotations
    from typing import TYPE_CHECKING
    import jax

    jax.random.KeyArray2 = jax.Array
    setattr(jax.nn, "normalize", jax.nn.standardize)
    if TYPE_CHECKING:
        from jax.nn import Foo

    def f(x: jax.typing.Arrays) -> jax.random.KeyArray2:
        return jax.nn.normalize(x)
    """
    assert codes(src) == []
