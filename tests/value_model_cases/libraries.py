"""The value model on flax, equinox, nnx and Pallas code: static fields, optional
structs, mutable boxes and refs. Checked statically; tests/test_value_model.py runs
it when the libraries are installed."""
from typing import Optional

import equinox as eqx
import flax.linen as nn
import flax.struct as struct
import jax
import jax.numpy as jnp
from flax import nnx
from jax.experimental import pallas as pl


@struct.dataclass
class State:
    params: jax.Array
    temperature: float = struct.field(pytree_node=False)
    dynamic_scale: Optional[object] = None


@jax.jit
def step(state: State, x):
    if state.temperature > 0:  # a static field
        x = x / state.temperature
    if state.dynamic_scale:  # an optional struct: truth-testing a pytree is fine
        x = x * 2
    return x


@jax.jit
def bad_step(state: State, x):
    if state.params > 0:  # expect: JAX201
        return x
    return -x


class Cfg(eqx.Module):
    w: jax.Array
    n: int = eqx.field(static=True)


@jax.jit
def eqx_static(cfg: Cfg, x):
    for _ in range(cfg.n):
        x = x + cfg.w
    return x


class Counter(nnx.Module):
    def __init__(self):
        self.count = nnx.Variable(jnp.zeros(()))

    def __call__(self, x):
        self.count[...] = self.count[...] + 1  # an nnx Variable is a mutable box
        return x


@nnx.jit
def run(m, x):
    v = nnx.Variable(jnp.ones(3))
    v[...] = x
    return m(x)


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2  # Pallas refs are written this way


def double(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


@nnx.jit
def nnx_traced(x):
    if x > 0:  # expect: JAX201
        return x
    return -x


@eqx.filter_jit
def filtered(x, n):
    if n > 0:  # filter_jit keeps a Python int static
        return x
    return -x


@eqx.filter_jit
def filtered_array(x: jax.Array):
    if x > 0:  # expect: JAX201
        return x
    return -x


class Gate(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool = False):
        h = nn.Dense(4)(x)
        if train:  # a Python bool passed to apply: static
            h = h * 2
        if h.sum() > 0:  # expect: JAX201
            return h
        return -h


gate = Gate()
gate_vars = gate.init(jax.random.key(0), jnp.ones((1, 3)))


@jax.jit
def gate_forward(variables, x):
    return gate.apply(variables, x, train=True)  # model.apply runs Gate.__call__ in this trace


class Tally(nnx.Module):
    def __init__(self):
        self.count = jnp.array(0)

    def __call__(self, x):
        self.count += 1  # nnx carries module attribute updates out of nnx.jit
        return x * 2


@nnx.jit
def tally_step(model, x):
    return model(x)


@eqx.filter_jit
def filtered_site(x):  # every call in this file passes an array: traced
    if x.sum() > 0:  # expect: JAX201
        return x
    return -x


RUNS = {
    "tally_step": lambda: tally_step(Tally(), jnp.ones(3)),
    "filtered": lambda: filtered(jnp.ones(()), 3),
    "step": lambda: step(State(jnp.ones(3), 2.0), jnp.ones(3)),
    "eqx_static": lambda: eqx_static(Cfg(jnp.ones(3), 3), jnp.ones(3)),
    "run": lambda: run(Counter(), jnp.ones(3)),
    "double": lambda: double(jnp.ones(8)),
}
RAISES = {
    "gate_forward": (lambda: gate_forward(gate_vars, jnp.ones((1, 3))), "TracerBoolConversionError"),
    "filtered_site": (lambda: filtered_site(jnp.ones(3)), "TracerBoolConversionError"),
    "nnx_traced": (lambda: nnx_traced(1.0), "TracerBoolConversionError"),
    "filtered_array": (lambda: filtered_array(jnp.ones(())), "TracerBoolConversionError"),
    "bad_step": (lambda: bad_step(State(jnp.float32(1.0), 2.0), 1.0), "TracerBoolConversionError"),
}

