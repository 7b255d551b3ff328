"""A runaway recompiling loop at import stops on the compile budget."""
import jax
import jax.numpy as jnp

scale_jit = jax.jit(lambda x, k: x * k, static_argnums=1)


def steady(x):
    for _ in range(3):
        x = scale_jit(x, 2.0)  # DECOY: the same static value: one compile
    return x


x = jnp.ones(2)
for i in range(500):
    x = scale_jit(x, 1.0 + i)  # REAL: a new static value on every iteration
