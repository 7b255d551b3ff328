# source: https://github.com/jax-ml/jax/issues/4472
# expect: JAX907
# line: 40
# observed: jax 0.10.2 CPU: ModuleNotFoundError "No module named 'jax.experimental.optimizers'" at line 40, inside `train` (the import sits in the function, so the module loads and fails on the first training run); the reporter's timing of the two model sizes never starts
# batch: 14
import time

import jax
import jax.numpy as jnp
import numpy as np

relu = lambda x: jnp.maximum(x, 0)


def factory(key, model_sizes):
    key1, key2, key3 = jax.random.split(key, 3)
    h1, h2, h3, h4 = model_sizes
    m1 = jax.random.normal(key1, (h1, h2))
    m2 = jax.random.normal(key2, (h2, h3))
    m3 = jax.random.normal(key3, (h3, h4))
    params = (m1, m2, m3)

    def model(params, x):
        m1, m2, m3 = params
        y1 = relu(x @ m1)
        y2 = relu(y1 @ m2)
        y3 = relu(y2 @ m3)
        return y3

    def loss(params, x, y):
        y_pred = model(params, x)
        return .5 * jnp.mean((y - y_pred) ** 2)

    return params, model, loss


def train(params, loss, x, y, batch_size=100, learning_rate=.05, steps=200):
    grad_fn = jax.grad(loss)

    from jax.experimental.optimizers import sgd
    opt = sgd(learning_rate)
    opt_state = opt.init_fn(params)

    @jax.jit
    def one_step(j, opt_state, x, y):
        grads = grad_fn(opt.params_fn(opt_state), x, y)
        return opt.update_fn(j, grads, opt_state)

    for j in range(steps):
        idx = np.random.choice(len(x), batch_size)
        opt_state = one_step(j, opt_state, x[idx], y[idx])
    return opt.params_fn(opt_state)


x = np.random.normal(size=(1000, 500)).astype(np.float32)
y = np.random.normal(size=(1000, 100)).astype(np.float32)
for model_sizes in [(500, 20, 20, 100), (500, 50, 50, 100)]:
    params, model, loss = factory(jax.random.PRNGKey(0), model_sizes)
    start = time.time()
    params = train(params, loss, x, y)
    jax.block_until_ready(params)
    print(model_sizes, time.time() - start)
