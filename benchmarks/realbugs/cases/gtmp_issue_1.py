# source: https://github.com/anindex/gtmp/issues/1
# expect: JAX601
# line: 37
# observed: jax 0.10.2 CPU: "planning time: 0.0005 s"; 0.83 s with block_until_ready
# batch: 1
import time

import jax
import jax.numpy as jnp


def make_planner(num_layers, num_points):
    @jax.jit
    def gtmp(keys, obstacles):
        def layer(key):
            pts = jax.random.uniform(key, (num_points, 2))
            d = jnp.linalg.norm(pts[:, None, :] - obstacles[None, :, :], axis=-1)
            return pts[jnp.argmax(d.min(axis=1))]
        return jax.vmap(layer)(keys)
    return gtmp


class GTMPRunner:
    def __init__(self, num_layers=2, num_points=20000):
        self.planner = make_planner(num_layers, num_points)
        self.obstacles = jax.random.uniform(jax.random.PRNGKey(1), (200, 2))

    def plan(self, seed, num_dreams=20):
        keys = jax.random.split(jax.random.PRNGKey(seed), num_dreams)
        return self.planner(keys, self.obstacles)


runner = GTMPRunner()
runner.plan(0)
tic = time.perf_counter()
paths = runner.plan(1)
print(f"planning time: {time.perf_counter() - tic:.4f} s")
