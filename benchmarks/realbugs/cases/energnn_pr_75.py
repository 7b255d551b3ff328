# source: https://github.com/energnn/energnn/pull/75
# expect: JAX402
# observed: jax 0.10.2 CPU: loss_fn and the update lambda each compiled 4 times in 4 steps (JAX_LOG_COMPILES)
# batch: 5
import jax
import jax.numpy as jnp


class GNN:
    def __init__(self, key, hidden=16):
        self.params = {"w": jax.random.normal(key, (4, hidden)) * 0.1, "v": jnp.zeros(hidden)}

    @staticmethod
    def apply(params, x):
        return jnp.tanh(x @ params["w"]) @ params["v"]


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.lr = lr

    def training_step(self, x, y):
        # the forward+VJP and the update are jitted again on every step
        def loss_fn(params):
            return jnp.mean((self.model.apply(params, x) - y) ** 2)

        loss, grads = jax.jit(jax.value_and_grad(loss_fn))(self.model.params)
        update = jax.jit(lambda p, g: jax.tree_util.tree_map(lambda a, b: a - self.lr * b, p, g))
        self.model.params = update(self.model.params, grads)
        return loss


trainer = Trainer(GNN(jax.random.PRNGKey(0)))
for step in range(4):
    loss = trainer.training_step(jnp.ones((8, 4)), jnp.zeros(8))
print(float(loss))
