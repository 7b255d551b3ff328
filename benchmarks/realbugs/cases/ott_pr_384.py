# source: https://github.com/ott-jax/ott/pull/384
# expect: JAX201
# line: 33
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 33 when the jitted `ot_distance` reads `out.converged`: the property applies Python `not` to `jnp.any(jnp.isnan(self.errors))`, a traced bool once the solver output is built inside jit
# batch: 13
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp


class Geometry(NamedTuple):
    cost_matrix: jax.Array
    epsilon: float = 0.05

    @property
    def kernel_matrix(self):
        return jnp.exp(-self.cost_matrix / self.epsilon)


class SinkhornOutput(NamedTuple):
    f: jax.Array
    g: jax.Array
    errors: Optional[jax.Array] = None
    reg_ot_cost: Optional[jax.Array] = None
    threshold: float = 1e-3

    @property
    def converged(self) -> bool:  # noqa: D102
        if self.errors is None:
            return False
        return jnp.logical_and(
            not jnp.any(jnp.isnan(self.errors)), self.errors[-1] < self.threshold
        )


class Sinkhorn:
    def __init__(self, threshold=1e-3, inner_iterations=10, max_iterations=200):
        self.threshold = threshold
        self.inner_iterations = inner_iterations
        self.max_iterations = max_iterations

    def __call__(self, geom, a, b):
        K = geom.kernel_matrix
        n_outer = self.max_iterations // self.inner_iterations

        def outer(i, state):
            u, v, errors = state
            for _ in range(self.inner_iterations):
                u = a / (K @ v)
                v = b / (K.T @ u)
            err = jnp.sum(jnp.abs(u * (K @ v) - a))
            return u, v, errors.at[i].set(err)

        u0, v0 = jnp.ones_like(a), jnp.ones_like(b)
        u, v, errors = jax.lax.fori_loop(0, n_outer, outer, (u0, v0, jnp.full(n_outer, -1.0)))
        f, g = geom.epsilon * jnp.log(u), geom.epsilon * jnp.log(v)
        cost = jnp.sum(f * a) + jnp.sum(g * b)
        return SinkhornOutput(f=f, g=g, errors=errors, reg_ot_cost=cost, threshold=self.threshold)


@jax.jit
def ot_distance(x, y):
    geom = Geometry(cost_matrix=jnp.sum((x[:, None] - y[None]) ** 2, axis=-1))
    a = jnp.full(x.shape[0], 1.0 / x.shape[0])
    b = jnp.full(y.shape[0], 1.0 / y.shape[0])
    out = Sinkhorn()(geom, a, b)
    return out.reg_ot_cost, out.converged


x = jax.random.normal(jax.random.PRNGKey(0), (32, 2))
y = jax.random.normal(jax.random.PRNGKey(1), (24, 2)) + 1.0
try:
    print(ot_distance(x, y))
except jax.errors.TracerBoolConversionError as e:
    print("TracerBoolConversionError:", str(e).splitlines()[0])
