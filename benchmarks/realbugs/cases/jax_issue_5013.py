# source: https://github.com/jax-ml/jax/issues/5013
# expect: JAX207
# line: 16
# observed: jax 0.10.2 CPU: TypeError at line 16
# batch: 4
from functools import partial

import jax
import jax.numpy as jnp
from jax import random


@partial(jax.jit, static_argnums=(2, 3))
def _sample_u_poisson(rng_key, block_lengths, m, l):
    sub_key, rng_key = random.split(rng_key)
    u = random.randint(sub_key, (jnp.sum(block_lengths), l), 0, m)
    return u, rng_key


block_lengths = jnp.array([3, 4, 2])
print(_sample_u_poisson(random.PRNGKey(0), block_lengths, 100, 22)[0].shape)
