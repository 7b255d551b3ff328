# source: https://github.com/probml/dynamax/issues/130
# expect: JAX105
# line: 24
# observed: jax 0.10.2 CPU: the 6 scan steps all train on minibatch [0. 1. 2. 3.] (batch means 1.5 six times, while the data holds 6 different minibatches): next() on the generator ran once, while lax.scan traced the body
# batch: 8
import jax
import jax.numpy as jnp
import jax.random as jr
from jax import lax


def sample_minibatches(key, dataset, batch_size, shuffle=True):
    """Sequence generator: yields successive minibatches of the dataset."""
    n_data = len(dataset)
    perm = jr.permutation(key, n_data) if shuffle else jnp.arange(n_data)
    for idx in range(0, n_data, batch_size):
        yield dataset[perm[idx : min(idx + batch_size, n_data)]]


def run_sgd(loss_fn, params, dataset, batch_size=4, num_steps=6, learning_rate=0.1, shuffle=False, key=jr.PRNGKey(0)):
    sample_generator = sample_minibatches(key, dataset, batch_size, shuffle)

    def train_step(params, itr):
        minibatch = next(sample_generator)
        val, grads = jax.value_and_grad(loss_fn)(params, minibatch)
        params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)
        return params, (val, jnp.mean(minibatch))

    params, (losses, batch_means) = lax.scan(train_step, params, jnp.arange(num_steps))
    return params, losses, batch_means


def loss_fn(params, minibatch):
    return jnp.mean((minibatch - params["mu"]) ** 2)


dataset = jnp.arange(24.0)
params, losses, batch_means = run_sgd(loss_fn, {"mu": jnp.array(0.0)}, dataset)
print(batch_means)
print(losses)
