# source: https://github.com/ott-jax/ott/issues/3
# expect: JAX201
# line: 53
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 53 (`out.errors[-1] < 1 and out.converged` on the solver output inside the jitted loss); unjitted the loss returns the regularised OT cost
# batch: 9
from typing import NamedTuple

import jax
import jax.numpy as jnp


class SinkhornOutput(NamedTuple):
    f: jax.Array
    g: jax.Array
    errors: jax.Array
    reg_ot_cost: jax.Array
    converged: jax.Array


class PointCloud:
    def __init__(self, x, y, epsilon=1.0):
        self.x = x
        self.y = y
        self.epsilon = epsilon

    @property
    def cost_matrix(self):
        return jnp.sum((self.x[:, None, :] - self.y[None, :, :]) ** 2, axis=-1)


def sinkhorn(geom, a, b, n_iters=200, threshold=1e-2):
    kernel = jnp.exp(-geom.cost_matrix / geom.epsilon)
    u = jnp.ones_like(a)
    v = jnp.ones_like(b)
    errors = []
    for _ in range(n_iters // 10):
        for _ in range(10):
            u = a / (kernel @ v)
            v = b / (kernel.T @ u)
        errors.append(jnp.sum(jnp.abs(u * (kernel @ v) - a)))
    errors = jnp.stack(errors)
    f = geom.epsilon * jnp.log(u)
    g = geom.epsilon * jnp.log(v)
    cost = jnp.sum(f * a) + jnp.sum(g * b)
    return SinkhornOutput(f, g, errors, cost, errors[-1] < threshold)


def sinkhorn_loss(x, y):
    n, m = x.shape[0], y.shape[0]
    a = jnp.ones(n) / n
    b = jnp.ones(m) / m
    out = sinkhorn(PointCloud(x, y), a, b)
    if out.errors[-1] < 1 and out.converged:
        return out.reg_ot_cost
    return jnp.nan


key_x, key_y = jax.random.split(jax.random.PRNGKey(0))
x = jax.random.normal(key_x, (8, 2))
y = jax.random.normal(key_y, (6, 2)) + 1.0
print(sinkhorn_loss(x, y))
print(jax.jit(sinkhorn_loss)(x, y))
