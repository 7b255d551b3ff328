# source: https://github.com/patrick-kidger/equinox/issues/512
# expect: JAX806
# line: 26
# observed: jax 0.10.2 CPU: ValueError at line 26
# batch: 2
import jax
import jax.numpy as jnp


class BatchNormModel:
    def __init__(self, key):
        self.weight = jax.random.normal(key, (3, 1))

    def __call__(self, params, x, state):
        h = x @ params
        mean = jnp.mean(h, axis=0)
        return h - mean, {"running_mean": 0.9 * state["running_mean"] + 0.1 * mean}


def loss_fn(params, model, x, y, state):
    pred, new_state = model(params, x, state)
    return jnp.mean((pred - y) ** 2), new_state


def make_step(model, params, x, y, state):
    loss, grads, new_state = jax.value_and_grad(loss_fn, has_aux=True)(params, model, x, y, state)
    return params - 0.1 * grads, new_state, loss


model = BatchNormModel(jax.random.PRNGKey(0))
print(make_step(model, model.weight, jnp.ones((4, 3)), jnp.zeros((4, 1)), {"running_mean": jnp.zeros(1)}))
