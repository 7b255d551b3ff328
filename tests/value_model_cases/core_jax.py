"""The value model on core JAX: containers, static fields, Python ints from JAX,
eager-only paths, narrowing, and argument positions. `# expect:` marks each
finding; `RUNS` and `RAISES` are checked under real JAX by tests/test_value_model.py."""
import dataclasses
from functools import partial
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Params:
    w: jax.Array
    n: int = dataclasses.field(default=2, metadata={"static": True})


@jax.jit
def static_field(p: Params, x):
    for _ in range(p.n):  # a static field: a Python int
        x = x + p.w
    return x


@jax.jit
def traced_field(p: Params, x):
    if p.w > 0:  # expect: JAX201
        return x
    return -x


class Batch(NamedTuple):
    x: jax.Array
    y: jax.Array


def make_metrics(x):
    return {"loss": x.sum(), "n": x.shape[0]}


@jax.jit
def dicts_are_not_arrays(batch: Batch):
    metrics = make_metrics(batch.x)
    metrics["loss2"] = metrics["loss"] * 2  # a dict from a helper

    def body(c, y):
        return c + y, {"y": y}

    _, out = lax.scan(body, 0.0, batch.y)
    out["z"] = out["y"] * 2  # a dict from lax.scan
    return metrics, out


def axis_sum(x):
    n = lax.psum(1, "i")  # a Python int: the axis size
    for _ in range(n):
        x = x + 1
    return x


@jax.jit
def eager_only(x):
    try:
        scale = float(x)  # the except handles the traced case
    except TypeError:
        scale = 1.0
    if isinstance(x, jax.core.Tracer):
        return x * scale
    return np.asarray(x)  # only reached with a concrete x


@jax.jit
def numpy_only_branch(x):
    if isinstance(x, (np.ndarray, np.generic)):  # never a tracer
        x = np.asarray(x) if x.sum() > 0 else x
    if jax.core.is_concrete(x):  # noqa: JAX906 - False for a jit tracer
        x = x if x.max() < 10 else x / 10
    return jnp.sin(x)


@jax.jit
def optional_mask(x, mask: Optional[jax.Array] = None):
    if mask:  # may test for None: not reported
        x = x * mask
    return x


class Model:
    @partial(jax.jit, static_argnums=(0, 2))  # self is argument 0
    def apply(self, x, n):
        for _ in range(n):
            x = x + 1
        return x

    def __hash__(self):
        return 0

    def __eq__(self, other):
        return isinstance(other, Model)

    def bound(self, x, n):
        return jax.jit(self.inner, static_argnums=1)(x, n)  # n is argument 1 of the bound method

    def inner(self, x, n):
        for _ in range(n):
            x = x + 1
        return x


def unbatched(x, n):
    for _ in range(n):  # in_axes None: vmap passes n through as a Python int
        x = x + 1
    return x


def loss(x):
    return float(x) * x  # expect: JAX202


@jax.jit
def forward(*args):
    return impl(*args)


def impl(x, y):
    if x > y:  # expect: JAX201
        return x
    return y


@jax.jit
def numpy_in_tree_map(params):
    return jax.tree.map(lambda p: np.tanh(p), params)  # expect: JAX204


def unused_update(x):
    y = x.at[0].set(1.0)  # expect: JAX302
    return x


RUNS = {
    "static_field": lambda: static_field(Params(jnp.ones(3)), jnp.ones(3)),
    "dicts_are_not_arrays": lambda: dicts_are_not_arrays(Batch(jnp.ones(3), jnp.ones(3))),
    "axis_sum": lambda: jax.jit(jax.vmap(axis_sum, axis_name="i"))(jnp.ones((2,))),
    "eager_only": lambda: eager_only(jnp.float32(2.0)),
    "numpy_only_branch": lambda: numpy_only_branch(jnp.ones(3)),
    "optional_mask": lambda: optional_mask(jnp.ones(3)),
    "apply": lambda: Model().apply(jnp.ones(3), 3),
    "bound": lambda: Model().bound(jnp.ones(3), 3),
    "unbatched": lambda: jax.vmap(unbatched, in_axes=(0, None))(jnp.ones(3), 3),
}
RAISES = {
    "traced_field": (lambda: traced_field(Params(jnp.float32(1.0)), 1.0), "TracerBoolConversionError"),
    "loss": (lambda: jax.grad(loss)(1.0), "ConcretizationTypeError"),
    "forward": (lambda: forward(1.0, 2.0), "TracerBoolConversionError"),
    "numpy_in_tree_map": (lambda: numpy_in_tree_map({"a": jnp.ones(2)}), "TracerArrayConversionError"),
}


@partial(jax.tree_util.register_dataclass, data_fields=["w"], meta_fields=["depth"])
@dataclasses.dataclass
class Explicit:
    w: jax.Array
    depth: int


@jax.jit
def explicit_fields(e: Explicit, x):
    for _ in range(e.depth):  # meta_fields: static
        x = x + e.w
    if e.w.sum() > 0:  # expect: JAX201
        return x
    return -x


# It raises at the `if` (TracerBoolConversionError), so `range(e.depth)` ran: depth is static.
RAISES["explicit_fields"] = (lambda: explicit_fields(Explicit(jnp.ones(3), 2), jnp.ones(3)), "TracerBoolConversionError")
