# source: https://github.com/poets-ai/elegy/pull/226
# expect: JAX805
# line: 57
# observed: jax 0.10.2 CPU: epoch 0 trains and validates, then the first train step of epoch 1 raises ValueError: INVALID_ARGUMENT: ... Buffer has been deleted or donated (line 53): test_step_fn donates self.states too, and test_on_batch drops the states it returns, so self.states still names the donated buffers
# batch: 10
import jax
import jax.numpy as jnp
import numpy as np


class MLP:
    def init(self, key, sizes=(784, 128, 10)):
        keys = jax.random.split(key, len(sizes) - 1)
        return [(jax.random.normal(k, (a, b)) / np.sqrt(a), jnp.zeros(b)) for k, a, b in zip(keys, sizes, sizes[1:])]

    def apply(self, params, x):
        for w, b in params[:-1]:
            x = jax.nn.relu(x @ w + b)
        w, b = params[-1]
        return x @ w + b


class Model:
    def __init__(self, module, learning_rate=1e-3):
        self.module = module
        self.learning_rate = learning_rate
        self.states = None
        # donate the states buffers: they are replaced by the step's output
        self.train_step_fn = jax.jit(self.train_step, donate_argnums=1)
        self.test_step_fn = jax.jit(self.test_step, donate_argnums=1)

    def init_on_batch(self, key):
        self.states = {"params": self.module.init(key), "step": jnp.zeros((), jnp.int32)}

    def loss_and_logs(self, params, x, y):
        logits = self.module.apply(params, x)
        loss = -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))
        accuracy = jnp.mean(jnp.argmax(logits, -1) == jnp.argmax(y, -1))
        return loss, {"loss": loss, "accuracy": accuracy}

    def train_step(self, data, states):
        x, y = data
        (_, logs), grads = jax.value_and_grad(self.loss_and_logs, has_aux=True)(states["params"], x, y)
        params = jax.tree_util.tree_map(lambda p, g: p - self.learning_rate * g, states["params"], grads)
        return logs, {"params": params, "step": states["step"] + 1}

    def test_step(self, data, states):
        x, y = data
        _, logs = self.loss_and_logs(states["params"], x, y)
        return logs, states

    def train_on_batch(self, x, y):
        logs, self.states = self.train_step_fn((x, y), self.states)
        return logs

    def test_on_batch(self, x, y):
        logs, _ = self.test_step_fn((x, y), self.states)
        return logs

    def fit(self, x, y, validation_data, epochs=2, batch_size=64):
        for epoch in range(epochs):
            for i in range(0, len(x), batch_size):
                logs = self.train_on_batch(x[i:i + batch_size], y[i:i + batch_size])
            val_logs = self.test_on_batch(*validation_data)
            print(f"epoch {epoch}: loss {float(logs['loss']):.4f}, val_accuracy {float(val_logs['accuracy']):.3f}")


rng = np.random.default_rng(0)
x_train = rng.normal(size=(512, 784)).astype(np.float32)
y_train = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 512)]
x_test = rng.normal(size=(128, 784)).astype(np.float32)
y_test = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]
model = Model(MLP())
model.init_on_batch(jax.random.PRNGKey(0))
model.fit(x_train, y_train, validation_data=(x_test, y_test))
