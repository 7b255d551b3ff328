# source: https://github.com/jax-ml/jax/issues/3493
# expect: JAX703
# line: 12
# observed: jax 0.10.2 CPU: no error with or without jit: network_output[20] on the (4, 10) output is clamped to row 3 and update returns [2. ... 2.]
# batch: 7
import jax
import jax.numpy as jnp


def loss(params, obs):
    network_output = params * obs  # Network output has shape [4, 10]
    network_output = network_output[20]  # Bug! 20 is out-of-bounds
    loss = jnp.sum(jax.lax.stop_gradient(params[0]) * network_output)
    return loss


def update(params, obs):
    grad = jax.grad(loss)(params, obs)
    return params + grad


params = jnp.ones((10,))
obs = jnp.ones((4, 10))

print(update(params, obs))
print(jax.jit(update)(params, obs))
