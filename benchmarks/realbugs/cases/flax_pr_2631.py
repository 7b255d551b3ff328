# source: https://github.com/google/flax/pull/2631
# expect: JAX502
# observed: jax 0.10.2 CPU: the dropout mask is [[0 0 1]] at every one of the 3 steps: the same dropout_key is passed to train_step each epoch
# batch: 7
import jax
import jax.numpy as jnp

root_key = jax.random.PRNGKey(seed=0)
main_key, params_key, dropout_key = jax.random.split(key=root_key, num=3)


class MyModel:
    def __init__(self, num_neurons, training):
        self.num_neurons = num_neurons
        self.training = training

    def init(self, key, x):
        w_key, b_key = jax.random.split(key)
        return {
            "w": jax.random.normal(w_key, (x.shape[-1], self.num_neurons)) * 0.1,
            "b": jnp.zeros(self.num_neurons),
        }

    def apply(self, params, x, rngs=None):
        x = x @ params["w"] + params["b"]
        if self.training:
            keep = jax.random.bernoulli(rngs["dropout"], 0.5, x.shape)
            x = jnp.where(keep, x / 0.5, 0.0)
        return x


my_model = MyModel(num_neurons=3, training=True)
x = jnp.ones((1, 4))
params = my_model.init(params_key, x)


@jax.jit
def train_step(params, batch, dropout_key):
    def loss_fn(params):
        logits = my_model.apply(params, batch["image"], rngs={"dropout": dropout_key})
        return jnp.mean((logits - batch["label"]) ** 2), logits

    (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
    params = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
    return params, logits


batch = {"image": x, "label": jnp.zeros((1, 3))}
for epoch in range(3):
    params, logits = train_step(params, batch, dropout_key)
    print(epoch, (logits != 0).astype(int))
