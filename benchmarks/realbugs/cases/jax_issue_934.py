# source: https://github.com/jax-ml/jax/issues/934
# expect: JAX601
# line: 43
# observed: jax 0.10.2 CPU (load 12): median 0.015 ms per call as the loop times it, 9.1 ms with block_until_ready at batch 256 (0.016 ms against 97 ms at batch 1024): the loop times dispatch only (the report, on GPU, saw a few "super-fast" iterations, then two orders of magnitude more once the dispatch queue filled)
# batch: 12
import time

import jax
import jax.numpy as jnp
import numpy as np


def init_mlp(key, sizes):
    params = []
    for k, (m, n) in zip(jax.random.split(key, len(sizes) - 1), zip(sizes[:-1], sizes[1:])):
        params.append((jax.random.normal(k, (m, n)) / np.sqrt(m), jnp.zeros(n)))
    return params


def predict(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


grad_loss = jax.jit(jax.grad(loss))


def time_iterations(params, batch_size, n_iter=30):
    key = jax.random.PRNGKey(batch_size)
    x = jax.random.normal(key, (batch_size, 256))
    y = jnp.sum(x, axis=1, keepdims=True)
    grad_loss(params, x, y)
    timings = []
    for _ in range(n_iter):
        t0 = time.time()
        grads = grad_loss(params, x, y)
        timings.append(time.time() - t0)
    return np.array(timings), grads


def time_iterations_blocked(params, batch_size, n_iter=30):
    key = jax.random.PRNGKey(batch_size)
    x = jax.random.normal(key, (batch_size, 256))
    y = jnp.sum(x, axis=1, keepdims=True)
    jax.block_until_ready(grad_loss(params, x, y))
    timings = []
    for _ in range(n_iter):
        t0 = time.time()
        grads = jax.block_until_ready(grad_loss(params, x, y))
        timings.append(time.time() - t0)
    return np.array(timings), grads


params = init_mlp(jax.random.PRNGKey(0), [256, 512, 512, 1])
for batch_size in (256, 1024):
    fast, _ = time_iterations(params, batch_size)
    blocked, _ = time_iterations_blocked(params, batch_size)
    print(f"batch {batch_size}: median per call {np.median(fast) * 1e3:.3f} ms as timed, "
          f"{np.median(blocked) * 1e3:.3f} ms when blocked ({np.median(blocked) / np.median(fast):.1f}x)")
