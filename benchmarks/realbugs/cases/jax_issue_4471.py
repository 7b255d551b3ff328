# source: https://github.com/jax-ml/jax/issues/4471
# expect: JAX205
# line: 16
# observed: jax 0.10.2 CPU: NonConcreteBooleanIndexError at line 16
# batch: 1
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1,))
def create_mask_inside_jitted_function(x, n_valid):
    # the mask depends only on the static argument, yet jnp builds it as a traced array
    mask = jnp.arange(x.shape[0]) < n_valid
    return x[mask].sum()


x = jnp.arange(10.0)
print(create_mask_inside_jitted_function(x, 4))
