# source: https://openillumi.com/?p=43923
# expect: JAX404
# line: 24
# observed: jax 0.10.2 CPU: ValueError: Non-hashable static arguments (BatchTracer) at line 24: the mapped row lands in map_row's static position 2
# batch: 7
from functools import partial

import jax
import jax.numpy as jnp
from jax import jit, vmap


@partial(jit, static_argnums=(2,))
def map_row(z, alpha, T):
    out = z
    for _ in range(T):
        out = alpha * jnp.tanh(out)
    return out


def propagate(inputs, alpha, T):
    # partial binds alpha and T to the first two positions, so each row lands in
    # position 2, the static one
    return vmap(partial(map_row, alpha, T))(inputs)


inputs = jnp.ones((4, 3))
print(propagate(inputs, 0.5, 3))
