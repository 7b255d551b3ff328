# source: https://github.com/bytedance/jaqmc/pull/34
# expect: JAX601
# line: 39
# observed: jax 0.10.2 CPU: the average includes the compiling first step (118 ms); over steps 10-19 the recorded time is 0.03 ms per step (dispatch) against 7.9 ms with block_until_ready
# batch: 3
import time

import jax
import jax.numpy as jnp


@jax.jit
def vmc_step(params, walkers, key):
    key, sub = jax.random.split(key)
    walkers = walkers + 0.1 * jax.random.normal(sub, walkers.shape)
    local_energy = jnp.sum(walkers ** 2, axis=-1) @ jnp.tanh(walkers @ params).sum(axis=-1)
    grads = jax.grad(lambda p: jnp.mean(jnp.tanh(walkers @ p)) * local_energy)(params)
    return params - 1e-3 * grads, walkers, key, local_energy


class StepTimeTracker:
    def __init__(self):
        self.times = []

    def record(self, seconds):
        self.times.append(seconds)

    def average(self):
        return sum(self.times) / len(self.times)


params = jnp.eye(64)
walkers = jnp.ones((2048, 64))
key = jax.random.PRNGKey(0)
tracker = StepTimeTracker()
for step in range(20):
    t0 = time.time()
    params, walkers, key, energy = vmc_step(params, walkers, key)
    tracker.record(time.time() - t0)
print(f"average step time: {tracker.average() * 1e3:.2f} ms")
