"""Removed JAX names: the import fails at the first one."""
import jax
import jax.numpy as jnp

tree = {"a": jnp.ones(2)}
doubled = jax.tree_map(lambda x: x * 2, tree)


def check(x):
    return isinstance(x, jnp.DeviceArray)


print(check(tree["a"]))
