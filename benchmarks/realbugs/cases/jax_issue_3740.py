# source: https://github.com/jax-ml/jax/issues/3740
# expect: JAX201
# line: 19
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 19
# batch: 2
import math

import jax.numpy as jnp
from jax import jit


def tt_round_model(cores, delta):
    """TT-rounding: truncate each core's singular values below delta."""
    new_cores = []
    for core in cores:
        u, s, vt = jnp.linalg.svd(core, full_matrices=False)
        rank = 0
        for x in s:
            if x < delta:
                break
            rank += 1
        new_cores.append((u[:, :rank] * s[:rank]) @ vt[:rank])
    return new_cores


fast_tt_round = jit(tt_round_model, static_argnums=(1))
cores = [jnp.eye(4) * jnp.arange(1.0, 5.0)] * 3
eps = 0.5
ttr = fast_tt_round(cores, eps / math.sqrt(len(cores) - 1))
print(ttr[0].shape)
