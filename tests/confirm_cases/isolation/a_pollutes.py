"""Changes the interpreter the way user code does: the next file must not see any of it."""
import os
import sys
import types

import jax


@jax.jit
def f(x):
    if x > 0:
        return x
    return x


os.environ["JAXLINT_LEAK"] = "1"
os.chdir("/")
sys.path.insert(0, "/nonexistent-jaxlint-leak")
sys.modules["leak_mod"] = types.ModuleType("leak_mod")
jax.jit = lambda fun, **kw: fun  # a monkeypatched jax.jit
