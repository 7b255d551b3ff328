# source: https://github.com/jax-ml/jax/issues/15136
# expect: JAX102
# line: 40
# observed: jax 0.10.2 CPU: after the first kernel.opt() call self.param holds DynamicJaxprTracers (nn.param is unchanged), and the print that uses them raises UnexpectedTracerError at line 50: the jitted method stores its update on self instead of returning it
# batch: 8
import functools

import jax.numpy as jnp
from jax import grad, jit, random


class MLP:
    def __init__(self, key, sizes, lr=0.1):
        keys = random.split(key, len(sizes) - 1)
        self.param = [
            (random.normal(k, (m, n)) * 0.1, jnp.zeros(n)) for k, m, n in zip(keys, sizes[:-1], sizes[1:])
        ]
        self.lr = lr

    def forward(self, param, x):
        for w, b in param[:-1]:
            x = jnp.tanh(x @ w + b)
        w, b = param[-1]
        return x @ w + b

    def loss(self, param, data, labels):
        return jnp.mean((self.forward(param, data) - labels) ** 2)


class Kernel:
    def __init__(self, nn, data, labels):
        self.nn = nn
        self.data = data
        self.labels = labels
        self.param = nn.param

    @functools.partial(jit, static_argnums=(0,))
    def opt(self):
        grads = grad(self.nn.loss)(self.nn.param, self.data, self.labels)
        self.param = [(w - self.nn.lr * dw, b - self.nn.lr * db) for (w, b), (dw, db) in zip(self.nn.param, grads)]
        return


key = random.PRNGKey(0)
data = random.normal(key, (16, 3))
labels = jnp.sum(data, axis=1, keepdims=True)
kernel = Kernel(MLP(key, [3, 8, 1]), data, labels)
for epoch in range(3):
    kernel.opt()
    print(epoch, type(kernel.param[0][0]).__name__, kernel.nn.loss(kernel.param, data, labels))
