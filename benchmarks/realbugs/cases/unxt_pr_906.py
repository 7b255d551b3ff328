# source: https://github.com/GalacticDynamics/unxt/pull/906
# expect: JAX402
# line: 22
# observed: jax 0.10.2 CPU: jit(<lambda>) compiled 5 times for 5 calls (JAX_LOG_COMPILES)
# batch: 2
import jax
import jax.numpy as jnp


class Quantity:
    def __init__(self, value, unit):
        self.value = jnp.asarray(value)
        self.unit = unit


def uconvert_value(value, scale):
    return value * scale


def outer_func(q, scale):
    # the jitted wrapper is rebuilt on every call: jit's cache is keyed on the lambda's identity
    return jax.jit(lambda v: uconvert_value(v, scale))(q.value)


q = Quantity(jnp.arange(1000.0), "m")
for _ in range(5):
    out = outer_func(q, 1e-3)
print(out[:3])
