# source: https://github.com/ericjang/maml-jax/pull/3
# expect: JAX901,JAX908
# line: 8
# observed: jax 0.10.2 CPU: ImportError "cannot import name 'tree_multimap' from 'jax.tree_util'" at line 8, before the sinusoid MAML notebook code runs (the inner SGD step maps `inner_sgd_fn` over grads and params with it)
# batch: 14
import jax.numpy as np
import numpy as onp
from jax.tree_util import tree_multimap
from jax import grad, jit, vmap, random


def init_mlp(key, sizes=(1, 40, 40, 1)):
    keys = random.split(key, len(sizes) - 1)
    return [(random.normal(k, (m, n)) * np.sqrt(2.0 / m), np.zeros(n))
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def net_apply(params, inputs):
    for w, b in params[:-1]:
        inputs = np.maximum(inputs @ w + b, 0.0)
    w, b = params[-1]
    return inputs @ w + b


def loss(params, inputs, targets):
    predictions = net_apply(params, inputs)
    return np.mean((targets - predictions) ** 2)


alpha = .1


def inner_update(p, x1, y1):
    grads = grad(loss)(p, x1, y1)
    inner_sgd_fn = lambda g, state: (state - alpha * g)
    return tree_multimap(inner_sgd_fn, grads, p)


def maml_loss(p, x1, y1, x2, y2):
    p2 = inner_update(p, x1, y1)
    return loss(p2, x2, y2)


def batch_maml_loss(p, x1_b, y1_b, x2_b, y2_b):
    task_losses = vmap(partial_maml(p))(x1_b, y1_b, x2_b, y2_b)
    return np.mean(task_losses)


def partial_maml(p):
    return lambda x1, y1, x2, y2: maml_loss(p, x1, y1, x2, y2)


def sample_tasks(outer_batch_size, inner_batch_size):
    As = onp.random.uniform(low=0.1, high=.5, size=outer_batch_size)
    phases = onp.random.uniform(low=0., high=onp.pi, size=outer_batch_size)

    def get_batch():
        xs, ys = [], []
        for A, phase in zip(As, phases):
            x = onp.random.uniform(low=-5., high=5., size=(inner_batch_size, 1))
            xs.append(x)
            ys.append(A * onp.sin(x + phase))
        return onp.stack(xs), onp.stack(ys)

    x1, y1 = get_batch()
    x2, y2 = get_batch()
    return x1, y1, x2, y2


@jit
def step(i, params, x1, y1, x2, y2, lr=1e-3):
    g = grad(batch_maml_loss)(params, x1, y1, x2, y2)
    return [(w - lr * gw, b - lr * gb) for (w, b), (gw, gb) in zip(params, g)]


params = init_mlp(random.PRNGKey(0))
for i in range(20):
    x1_b, y1_b, x2_b, y2_b = sample_tasks(4, 20)
    params = step(i, params, x1_b, y1_b, x2_b, y2_b)
print(batch_maml_loss(params, *sample_tasks(4, 20)))
