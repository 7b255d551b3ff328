import contextlib
import os
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("JAX_PLATFORMS", "cpu")


@pytest.fixture
def lint():
    """Findings for a code string, as a sorted list of (line, code)."""
    from jaxlint.linter import lint_string

    def run(code, select=None, **kw):
        return sorted((f.line, f.code) for f in lint_string(code, select=select, **kw))

    return run


@contextlib.contextmanager
def jax_modules_restored():
    """Run code that may patch JAX's public API (a page's shim: `jax.nn.normalize = ...`)
    and put the public names of JAX's public modules back afterwards, so that the
    rest of the run sees the installed JAX and not the example's patch. Private
    modules and names are JAX's own state and are left as the run made them."""
    def public(name):
        return (name == "jax" or name.startswith("jax.")) and "._" not in name

    before = {name: {a: v for a, v in vars(mod).items() if not a.startswith("_")}
              for name, mod in list(sys.modules.items()) if mod is not None and public(name)}
    try:
        yield
    finally:
        for name, saved in before.items():
            mod = sys.modules.get(name)
            if mod is None:
                continue
            now = vars(mod)
            # A name the code added goes, unless JAX loaded it on the way
            # (a submodule imported during the run is an attribute of its parent).
            added = [a for a, v in now.items()
                     if not a.startswith("_") and a not in saved and not isinstance(v, types.ModuleType)]
            for attr in added:
                del now[attr]
            for attr, value in saved.items():
                if now.get(attr, saved) is not value:
                    now[attr] = value
