# source: https://github.com/google/flax/issues/4085
# expect: JAX201
# line: 36
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 36 (`not training` on the traced `training` flag that the jitted train_step passes down to the module's __call__)
# batch: 12
import jax
import jax.numpy as jnp


def dense_init(key, n_in, n_out):
    w_key, _ = jax.random.split(key)
    return {"kernel": jax.random.normal(w_key, (n_in, n_out)) / jnp.sqrt(n_in), "bias": jnp.zeros(n_out)}


def dropout(x, rate, deterministic, rng):
    """The check flax.linen.Dropout makes before drawing its mask."""
    if deterministic or rate == 0.0:
        return x
    keep = jax.random.bernoulli(rng, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)


class DNN:
    def __init__(self, num_hidden_units1, num_hidden_units2, num_outputs, dropout_rate):
        self.sizes = (num_hidden_units1, num_hidden_units2, num_outputs)
        self.dropout_rate = dropout_rate

    def init(self, key, x):
        keys = jax.random.split(key, 3)
        n_in = (x.shape[-1],) + self.sizes[:-1]
        return [dense_init(k, a, b) for k, a, b in zip(keys, n_in, self.sizes)]

    def __call__(self, params, x, training, rng):
        rng1, rng2 = jax.random.split(rng)
        x = jax.nn.relu(x @ params[0]["kernel"] + params[0]["bias"])
        x = dropout(x, self.dropout_rate, deterministic=not training, rng=rng1)
        x = jax.nn.relu(x @ params[1]["kernel"] + params[1]["bias"])
        x = dropout(x, self.dropout_rate, deterministic=not training, rng=rng2)
        return x @ params[2]["kernel"] + params[2]["bias"]


model = DNN(num_hidden_units1=32, num_hidden_units2=16, num_outputs=1, dropout_rate=0.2)


def mse(params, X, y, training):
    def squared_error(x, y):
        y_pred = model(params, x, training, jax.random.PRNGKey(114))
        diff = y_pred - y
        return jnp.inner(diff, diff)

    return jnp.mean(jax.vmap(squared_error)(X, y), axis=0)


@jax.jit
def train_step(params, X, y, training):
    loss, grads = jax.value_and_grad(mse)(params, X, y, training)
    params = jax.tree_util.tree_map(lambda p, g: p - 1e-2 * g, params, grads)
    return params, loss


def fit(params, X, y, training):
    for i in range(1000):
        params, loss = train_step(params, X, y, training)
        if i % 100 == 0:
            print(loss)
    return params


X = jax.random.normal(jax.random.PRNGKey(0), (128, 8))
y = jnp.sum(X, axis=1, keepdims=True)
params = model.init(jax.random.PRNGKey(114), X)
params = fit(params, X, y, True)
