# source: https://github.com/jax-ml/jax/issues/9023
# expect: JAX103
# line: 21
# observed: jax 0.10.2 CPU: after model.assign_fn(lambda x: x + 2) the jitted wrapper still returns 2.0 for x = 1 while model.fn(1) returns 3, and after assign_fn(lambda x: x * 4) it still returns 2.0: self is a static argument hashed by identity, so the cached trace of wrapper keeps the first fn
# batch: 9
from functools import partial

import jax.numpy as jnp
from jax import jit


class Surrogate:
    """Physics-informed surrogate: a residual function plugged in after construction."""

    def __init__(self, scale=1.0):
        self.scale = scale
        self.fn = None

    @partial(jit, static_argnums=(0,))
    def wrapper(self, x):
        return self.scale * self.fn(x)

    def assign_fn(self, fn):
        self.fn = fn


model = Surrogate()
model.assign_fn(lambda x: x + 1)
print(model.wrapper(jnp.float32(1.0)))  # 2.0

model.assign_fn(lambda x: x + 2)
print(model.wrapper(jnp.float32(1.0)))  # still 2.0
print(model.fn(1))  # 3

model.assign_fn(lambda x: x * 4)
print(model.wrapper(jnp.float32(1.0)))
