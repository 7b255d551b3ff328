# source: https://github.com/BirkhoffG/jax-dataloader/issues/2
# expect: JAX105
# line: 35
# observed: jax 0.10.2 CPU: all 3 steps return the first batch ([0 1 2 3 4]): next() ran once, at trace time
# batch: 6
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


class DataLoaderJax:
    def __init__(self, X, Y, batch_size):
        self.X, self.Y, self.batch_size = X, Y, batch_size
        self._pos = 0

    def __iter__(self):
        return self

    def __next__(self):
        start = self._pos
        self._pos += self.batch_size
        return self.X[start:self._pos], self.Y[start:self._pos]


X = np.arange(60 * 4, dtype=np.float32).reshape(60, 4)
Y = np.arange(60) % 10
train_loader = DataLoaderJax(X, Y, batch_size=5)


@partial(jax.jit, static_argnames=["train_loader"])
def foo(train_loader):
    train_iter = iter(train_loader)
    Xtr, Ytr = next(train_iter)
    return jnp.sum(Xtr), Ytr


for step in range(3):
    print(foo(train_loader)[1])
