"""Imported after a_pollutes.py by the same confirm run: fails at import if anything leaked."""
import os
import sys

import jax

assert "JAXLINT_LEAK" not in os.environ, "environment leaked"
assert os.getcwd() != "/", "cwd leaked"
assert "/nonexistent-jaxlint-leak" not in sys.path, "sys.path leaked"
assert "leak_mod" not in sys.modules, "sys.modules leaked"
assert getattr(jax.jit, "__module__", "").startswith("jax"), "a patched jax.jit leaked"


@jax.jit
def f(x):
    if x > 0:
        return x
    return x
