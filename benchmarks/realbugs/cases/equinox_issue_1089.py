# source: https://github.com/patrick-kidger/equinox/issues/1089
# expect: JAX404
# line: 32
# observed: jax 0.10.2 CPU: ValueError: Non-hashable static arguments (Problematic(nested={0: 0.0}), unhashable dict field) at line 32
# batch: 7
import dataclasses

import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Problematic:
    nested: dict

    def __call__(self):
        return 1.0


model = Problematic({0: 0.0})
print("Calling the model directly:", model())


def merge(parameters, static):
    return static() + jnp.sum(parameters)


arr = jnp.zeros(3)
static = model

try:
    out = jax.jit(merge, static_argnames="static")(arr, static)
    print("Calling the model after filtering and jitting succeeded.", out)
except Exception as exception:
    print("Calling the model after filtering and jitting failed:")
    print(exception)
