"""Which arm of a branch a trace takes: code under a test that has the same Python value
in every trace of its function is traced only on that side. Each `# expect:` line is a
finding; `RUNS` and `RAISES` are checked under real JAX by tests/test_value_model.py."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

VERBOSE = False


# Every traced caller passes the literal that turns the branch off; the eager caller
# (outside any transform) is no trace. A helper called only from that arm is not traced.
def show(value):
    print(f"{float(value):.3e}")


def summarise(x, *, for_jit: bool = False):
    g = jnp.sum(x ** 2)
    if not for_jit:
        print(f"{float(g):.3e}")
        show(g)
    return g


summarise_jit = jax.jit(lambda x: summarise(x, for_jit=True))


# One traced caller leaves the default, which turns the branch on.
def report(x, *, for_jit: bool = False):
    g = jnp.sum(x ** 2)
    if not for_jit:
        print(f"{float(g):.3e}")  # expect: JAX202
    return g


report_quiet = jax.jit(lambda x: report(x, for_jit=True))
report_loud = jax.jit(lambda x: report(x))


# Traced callers disagree: the branch is traced for one of them.
def energy(x, verbose):
    e = jnp.sum(x ** 2)
    if verbose:
        print(float(e))  # expect: JAX202
    return e


@jax.jit
def energy_quiet(x):
    return energy(x, False)


@jax.jit
def energy_loud(x):
    return energy(x, True)


# A static argument passed as a literal at every call of the jitted function.
def norm(x, eager=False):
    n = jnp.linalg.norm(x)
    if eager:
        print("norm", float(n))
    return n


norm_jit = jax.jit(norm, static_argnames="eager")


def norm_twice(x):
    return norm_jit(x, eager=False) + norm_jit(x)


@partial(jax.jit, static_argnums=1)
def scaled(x, mode="train"):
    if mode == "eval":
        return x * int(x.sum())
    return x * 2


def scaled_both(x):
    return scaled(x) + scaled(x, "train")


# Passed to jit without marking it static: the flag is a tracer, and the trace fails
# at `if not fast:` (TracerBoolConversionError) before it reaches `float`; the arm stays live.
def total(x, fast=False):
    t = jnp.sum(x)
    if not fast:
        print(float(t))  # expect: JAX202
    return t


total_jit = jax.jit(total)


# A caller's own parameter, followed up to the literal its traced caller passes.
def inner(x, mode):
    return x * 2 if mode == "train" else x * int(x.sum())


def middle(x, mode):
    return inner(x, mode) + 1


@jax.jit
def outer(x):
    return middle(x, "train")


# A tracer check, true in every trace of a jitted function.
@jax.jit
def step(x):
    y = jnp.sum(x * 2)
    if not isinstance(y, jax.core.Tracer):
        print("eager", float(y))
    return y


# No tracer is a Python float or a NumPy array: that arm is never traced, so `y` is
# still a tracer after it.
@jax.jit
def rounded(x):
    y = jnp.sum(x)
    if isinstance(y, (float, np.ndarray)):
        y = np.float32(y)
    return int(y)  # expect: JAX202


# A module constant bound once.
@jax.jit
def logged_step(x):
    y = jnp.sum(x * 2)
    if VERBOSE:
        print("step", y)
    return y


RUNS = {
    "summarise": lambda: (summarise_jit(jnp.ones(3)), summarise(jnp.ones(3))),
    "report_quiet": lambda: report_quiet(jnp.ones(3)),
    "energy_quiet": lambda: energy_quiet(jnp.ones(3)),
    "norm": lambda: (norm_twice(jnp.ones(3)), norm(jnp.ones(3), eager=True)),
    "scaled": lambda: scaled_both(jnp.ones(3)),
    "outer": lambda: outer(jnp.ones(3)),
    "step": lambda: step(jnp.ones(3)),
    "logged_step": lambda: logged_step(jnp.ones(3)),
}

RAISES = {
    "report_loud": (lambda: report_loud(jnp.ones(3)), "ConcretizationTypeError"),
    "energy_loud": (lambda: energy_loud(jnp.ones(3)), "ConcretizationTypeError"),
    "rounded": (lambda: rounded(jnp.ones(3)), "ConcretizationTypeError"),
    "total": (lambda: total_jit(jnp.ones(3), fast=True), "TracerBoolConversionError"),
}
