# source: https://github.com/jax-ml/jax/pull/6399
# expect: JAX804
# line: 15
# observed: jax 0.10.2 CPU: TypeError at line 15
# batch: 4
import jax
import jax.numpy as jnp


def weighted_sum(x, w):
    return jnp.sum(x * w)


# booleans meant as "map this argument / don't map that one"
batched = jax.vmap(weighted_sum, in_axes=(True, False))
print(batched(jnp.ones((4, 3)), jnp.arange(3.0)))
