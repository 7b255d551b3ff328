# source: https://openillumi.com/en/en-jax-jit-list-static-arg-best-practice
# expect: JAX404
# line: 22
# observed: jax 0.10.2 CPU: ValueError: Non-hashable static arguments (list [1, 2, 3]) at line 22
# batch: 7
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=["offsets"])
def dummy_function(x, offsets):
    total = 0.0
    for o in offsets:
        total = total + jnp.roll(x, o)
    return total


x = jnp.arange(8.0)
offsets = [1, 2, 3]
print(dummy_function(x, offsets=offsets))
