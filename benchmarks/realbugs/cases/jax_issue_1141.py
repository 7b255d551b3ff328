# source: https://github.com/jax-ml/jax/issues/1141
# expect: JAX104
# line: 28
# observed: jax 0.10.2 CPU: three train_step calls 1.1 s apart print the same noisy first row [1.542517 2.12135 -0.33609432]: int(time.time()) is read once, when train_step is traced, and the key it seeds is baked into the compiled step
# batch: 11
import time

import jax
import jax.numpy as jnp


def init_params(key, sizes=(16, 32, 1)):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, sub = jax.random.split(key)
        params.append((jax.random.normal(sub, (n_in, n_out)) / jnp.sqrt(n_in), jnp.zeros(n_out)))
    return params


def predict(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def noisy_loss(params, batch, noise_scale=0.1):
    rng = jax.random.PRNGKey(int(time.time()))
    x, y = batch
    x = x + noise_scale * jax.random.normal(rng, x.shape)
    return jnp.mean((predict(params, x) - y) ** 2), x


@jax.jit
def train_step(params, batch, lr=1e-2):
    (loss, noisy_x), grads = jax.value_and_grad(noisy_loss, has_aux=True)(params, batch)
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return params, loss, noisy_x[0, :3]


key = jax.random.PRNGKey(0)
params = init_params(key)
x = jax.random.normal(key, (64, 16))
batch = (x, jnp.sin(x.sum(axis=1, keepdims=True)))
for step in range(3):
    params, loss, first_row = train_step(params, batch)
    print(step, float(loss), first_row)
    time.sleep(1.1)
