# source: https://github.com/rlouf/mcx/issues/58
# expect: JAX404
# line: 28
# observed: jax 0.10.2 CPU: TypeError at line 28
# batch: 1
from functools import partial

import jax
import jax.numpy as jnp


def longest_batch_before_turn(integrator_step):
    @partial(jax.jit, static_argnums=(2,))
    def run(initial_position, initial_momentum, step_sizes):
        def body(carry, step_size):
            q, p = carry
            q, p = integrator_step(q, p, step_size)
            return (q, p), jnp.sum(q * p)

        _, checks = jax.lax.scan(body, (initial_position, initial_momentum), step_sizes)
        return jnp.argmax(checks < 0)

    return run


run = longest_batch_before_turn(lambda q, p, eps: (q + eps * p, p - eps * q))
step_sizes = jnp.full(10, 0.1)
print(run(jnp.ones(2), jnp.ones(2), step_sizes))
