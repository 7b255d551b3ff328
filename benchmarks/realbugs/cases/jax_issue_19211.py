# source: https://github.com/jax-ml/jax/issues/19211
# expect: JAX303
# line: 11
# observed: jax 0.10.2 CPU: ImportError at line 11: cannot import name 'index_update' from 'jax.ops'
# batch: 12
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.ops import index_update, index


class BatchedMPCExpert:
    """A sampling-based holonomic planner: a batch of trajectories is refined by a few
    projection steps, with the start state written into the first row of each trajectory."""

    def __init__(self, num_batch=64, num_steps=30, dt=0.1, v_max=1.5):
        self.num_batch = num_batch
        self.num_steps = num_steps
        self.dt = dt
        self.v_max = v_max
        self.P = jnp.tril(jnp.ones((num_steps, num_steps))) * dt

    @partial(jax.jit, static_argnums=(0,))
    def rollout(self, x_init, y_init, vx, vy):
        x = jnp.zeros((self.num_batch, self.num_steps))
        y = jnp.zeros((self.num_batch, self.num_steps))
        x = index_update(x, index[:, 0], x_init)
        y = index_update(y, index[:, 0], y_init)
        x = x + jnp.clip(vx, -self.v_max, self.v_max) @ self.P.T
        y = y + jnp.clip(vy, -self.v_max, self.v_max) @ self.P.T
        return x, y

    @partial(jax.jit, static_argnums=(0,))
    def cost(self, x, y, x_goal, y_goal, obstacles):
        goal = (x[:, -1] - x_goal) ** 2 + (y[:, -1] - y_goal) ** 2
        d = jnp.sqrt((x[:, :, None] - obstacles[:, 0]) ** 2 + (y[:, :, None] - obstacles[:, 1]) ** 2)
        return goal + jnp.sum(jnp.maximum(0.0, 0.6 - d), axis=(1, 2))

    def plan(self, key, x_init, y_init, x_goal, y_goal, obstacles, iters=5):
        mean = jnp.zeros((2, self.num_steps))
        for _ in range(iters):
            key, subkey = jax.random.split(key)
            v = mean + 0.5 * jax.random.normal(subkey, (2, self.num_batch, self.num_steps))
            x, y = self.rollout(x_init, y_init, v[0], v[1])
            elite = jnp.argsort(self.cost(x, y, x_goal, y_goal, obstacles))[: self.num_batch // 8]
            mean = v[:, elite].mean(axis=1)
        return x[elite[0]], y[elite[0]]


planner = BatchedMPCExpert()
obstacles = jnp.asarray(np.array([[1.0, 1.0], [2.0, 0.5]]))
print(planner.plan(jax.random.PRNGKey(0), 0.0, 0.0, 3.0, 2.0, obstacles))
