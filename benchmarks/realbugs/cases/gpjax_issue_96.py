# source: https://github.com/thomaspinder/GPJax/issues/96
# expect: JAX105
# observed: jax 0.10.2 CPU: 1 distinct mini-batch over 200 steps of the scanned training step: `next_batch()` (a lambda calling `next` on the dataset's iterator) runs once, when `lax.scan` traces `step`, and that batch is baked into every iteration; the loss curve is smooth
# batch: 13
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

SEEN = []


@dataclass
class Dataset:
    X: jnp.ndarray
    y: jnp.ndarray

    @property
    def n(self):
        return self.X.shape[0]

    def batch(self, batch_size, seed=42):
        """Shuffled, repeated mini-batches (the tf.data pipeline: shuffle, repeat, batch)."""
        rng = np.random.default_rng(seed)

        def gen():
            while True:
                idx = rng.permutation(self.n)
                for start in range(0, self.n - batch_size + 1, batch_size):
                    yield Dataset(X=self.X[idx[start:start + batch_size]], y=self.y[idx[start:start + batch_size]])

        self._iterator = gen()
        return self

    def get_batcher(self):
        return lambda: next(self._iterator)


def progress_bar_scan(n_iters, log_rate):
    def _decorator(body):
        def wrapped(carry, iter_num):
            jax.lax.cond(iter_num % log_rate == 0, lambda: jax.debug.callback(SEEN.append, iter_num), lambda: None)
            return body(carry, iter_num)
        return wrapped
    return _decorator


def objective(params, batch):
    mean = batch.X @ params["w"] + params["b"]
    return 0.5 * jnp.mean((batch.y - mean) ** 2 / jnp.exp(params["log_noise"])) + 0.5 * params["log_noise"]


def fit_batches(objective, params, train_data, learning_rate=1e-2, n_iters=200, log_rate=50):
    next_batch = train_data.get_batcher()

    def loss(params, batch):
        return objective(params, batch)

    @progress_bar_scan(n_iters, log_rate)
    def step(carry, iter_num):
        params = carry
        batch = next_batch()
        loss_val, loss_gradient = jax.value_and_grad(loss)(params, batch)
        params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, loss_gradient)
        return params, (loss_val, batch.X[0, 0])

    params, (history, first_x) = jax.lax.scan(step, params, jnp.arange(n_iters))
    return params, history, first_x


key = jax.random.PRNGKey(0)
X = jax.random.uniform(key, (500, 1), minval=-3.0, maxval=3.0)
y = jnp.sin(X) + 0.1 * jax.random.normal(jax.random.PRNGKey(1), X.shape)
D = Dataset(X=X, y=y).batch(batch_size=32)
params = {"w": jnp.zeros((1, 1)), "b": jnp.zeros(1), "log_noise": jnp.zeros(())}
params, history, first_x = fit_batches(objective, params, D)
print("distinct batches over", first_x.shape[0], "steps:", np.unique(np.asarray(first_x)).size)
