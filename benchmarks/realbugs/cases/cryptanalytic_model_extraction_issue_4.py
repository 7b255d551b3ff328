# source: https://github.com/google-research/cryptanalytic-model-extraction/issues/4
# expect: JAX907
# line: 7
# observed: jax 0.10.2 CPU: ModuleNotFoundError at line 7
# batch: 3
import jax
import jax.experimental.optimizers
import jax.numpy as jnp


def train(weights, xs, ys, steps=10):
    init, update, get = jax.experimental.optimizers.adam(1e-3)
    state = init(weights)
    for i in range(steps):
        g = jax.grad(lambda w: jnp.mean((xs @ w - ys) ** 2))(get(state))
        state = update(i, g, state)
    return get(state)


print(train(jnp.zeros(3), jnp.ones((4, 3)), jnp.ones(4)))
