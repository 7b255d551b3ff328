# source: https://github.com/jax-ml/jax/issues/27282
# expect: JAX704
# line: 33
# observed: jax 0.10.2 CPU: OverflowError at line 33 (the first worker's reset): An overflow was encountered while parsing an argument to a jitted computation, whose argument path is seed. Got <class 'int'> with value 2501681491 (the per-worker seeds are uint32 values; the jitted init receives them as Python ints, which jit converts to int32 without x64; the same seeds work in `jax.random.key` outside jit)
# batch: 12
import zlib

import jax
import jax.numpy as jnp


def worker_seed(run_name, worker_id, base_seed=0xDEADBEEF):
    """Deterministic 32-bit seeds per worker, as a sweep launcher derives them."""
    return (base_seed + zlib.crc32(f"{run_name}/{worker_id}".encode())) % 2**32


@jax.jit
def init_worker_state(seed, obs):
    key = jax.random.key(seed)
    k_params, k_explore = jax.random.split(key)
    params = jax.random.normal(k_params, (obs.shape[-1], 4)) * 0.1
    epsilon = jax.random.uniform(k_explore, (), minval=0.05, maxval=0.3)
    return {"params": params, "epsilon": epsilon, "key": jax.random.key_data(key)}


class Worker:
    def __init__(self, run_name, worker_id, obs_dim=8):
        self.seed = worker_seed(run_name, worker_id)
        self.obs = jnp.zeros((1, obs_dim))
        self.state = None

    def reset(self):
        self.state = init_worker_state(self.seed, self.obs)
        return self.state


workers = [Worker("sweep-7", i) for i in range(4)]
for w in workers:
    print(w.seed, w.reset()["epsilon"])
