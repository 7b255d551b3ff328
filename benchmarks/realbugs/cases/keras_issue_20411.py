# source: https://github.com/keras-team/keras/issues/20411
# expect: JAX407
# line: 53
# observed: jax 0.10.2 CPU (2 shared cores, load 17.9): with steps_per_execution 1, 5, 10, 20 the model is traced 1, 5, 10, 20 times and the first call (trace + compile) takes 2.26, 3.88, 4.50, 6.55 s: the Python loop over the steps of one execution is unrolled inside the jitted multi_train_steps, one copy of the whole train step per step
# batch: 10
import time

import jax
import jax.numpy as jnp
import numpy as np

TRACES = {"model": 0}


class MLP:
    def __init__(self, sizes=(64, 256, 256, 256, 10)):
        self.sizes = sizes

    def init(self, key):
        keys = jax.random.split(key, len(self.sizes) - 1)
        return [(jax.random.normal(k, (a, b)) / np.sqrt(a), jnp.zeros(b)) for k, a, b in zip(keys, self.sizes, self.sizes[1:])]

    def __call__(self, params, x):
        TRACES["model"] += 1
        for w, b in params[:-1]:
            x = jax.nn.relu(x @ w + b)
        w, b = params[-1]
        return x @ w + b


class JAXTrainer:
    def __init__(self, model, learning_rate=1e-2, steps_per_execution=1):
        self.model = model
        self.learning_rate = learning_rate
        self.steps_per_execution = steps_per_execution

    def compute_loss(self, params, x, y):
        logits = self.model(params, x)
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))

    def train_step(self, state, data):
        params = state
        x, y = data[0]
        loss, grads = jax.value_and_grad(self.compute_loss)(params, x, y)
        params = jax.tree_util.tree_map(lambda p, g: p - self.learning_rate * g, params, grads)
        return {"loss": loss}, params

    def make_train_function(self):
        def one_train_step(state, data):
            return self.train_step(state, data)

        def multi_train_steps(state, data):
            for single_step_data in data:
                logs, state = one_train_step(state, [single_step_data])
            return logs, state

        if self.steps_per_execution > 1:
            return jax.jit(multi_train_steps)
        return jax.jit(one_train_step)

    def fit(self, params, x, y, batch_size=32, epochs=1):
        train_function = self.make_train_function()
        n_batches = len(x) // batch_size
        batches = [(x[i * batch_size:(i + 1) * batch_size], y[i * batch_size:(i + 1) * batch_size]) for i in range(n_batches)]
        spe = self.steps_per_execution
        first_call = None
        for _ in range(epochs):
            for start in range(0, n_batches - spe + 1, spe):
                t0 = time.perf_counter()
                logs, params = train_function(params, batches[start:start + spe])
                if first_call is None:
                    jax.block_until_ready(logs)
                    first_call = time.perf_counter() - t0
        return jax.block_until_ready(logs), params, first_call


rng = np.random.default_rng(0)
x = rng.normal(size=(1280, 64)).astype(np.float32)
y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, size=1280)]
model = MLP()
for spe in (1, 5, 10, 20):
    TRACES["model"] = 0
    trainer = JAXTrainer(model, steps_per_execution=spe)
    logs, _, first_call = trainer.fit(model.init(jax.random.PRNGKey(0)), x, y)
    print(f"steps_per_execution = {spe}, model retracing count: {TRACES['model']}, "
          f"first call (trace + compile) {first_call:.2f} s, loss {float(logs['loss']):.3f}")
