# source: https://github.com/jax-ml/jax/issues/8599
# expect: JAX104
# line: 17
# observed: jax 0.10.2 CPU: elapsed is 0.061921 s on all 3 calls: the clock was read twice at trace time and the difference baked in
# batch: 5
from functools import partial
from time import perf_counter

import jax

jnp = jax.numpy
jit = jax.jit


@partial(jit, static_argnums=(0,))
def benchmark(function, data):
    start = perf_counter()
    result = function(data)
    elapsed = perf_counter() - start
    return result, elapsed


f = lambda x: jnp.linalg.inv(x @ x.T + jnp.eye(x.shape[0]))
for n in [64, 64, 64]:
    _, elapsed = benchmark(f, jnp.ones((n, n)))
    print(f"elapsed: {float(elapsed):.6f} s")
