# source: https://github.com/Drenderer/klax/issues/19
# expect: JAX804
# line: 23
# observed: jax 0.10.2 CPU: ValueError at line 23
# batch: 3
import jax
import jax.numpy as jnp


class TwoInputModel:
    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.w1 = jax.random.normal(k1, (3,))
        self.w2 = jax.random.normal(k2, (2,))

    def __call__(self, x):
        x1, x2 = x
        return jnp.dot(self.w1, x1) + jnp.dot(self.w2, x2)


def mse(model, x, y, in_axes):
    # x = (x1, x2) is a single argument; a tuple in_axes is read as one entry per argument
    y_pred = jax.vmap(model, in_axes=in_axes)(x)
    return jnp.mean((y_pred - y) ** 2)


x = (jnp.ones((8, 3)), jnp.ones((8, 2)))
in_axes = jax.tree_util.tree_map(lambda _: 0, x)
print(mse(TwoInputModel(jax.random.PRNGKey(0)), x, jnp.zeros(8), in_axes))
