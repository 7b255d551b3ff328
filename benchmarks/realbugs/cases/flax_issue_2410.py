# source: https://github.com/google/flax/issues/2410
# expect: JAX404
# line: 33
# observed: jax 0.10.2 CPU: TypeError at line 33
# batch: 3
import jax
import jax.numpy as jnp


class TrainState:
    def __init__(self, params, step=0):
        self.params = params
        self.step = step

    def apply_gradients(self, grads, lr=0.1):
        return TrainState(jax.tree_util.tree_map(lambda p, g: p - lr * g, self.params, grads), self.step + 1)


def loss_fn(params, batch):
    return jnp.mean((batch["x"] @ params["w"] - batch["y"]) ** 2)


def train_step(state, metric, batch):
    grads = jax.grad(loss_fn)(state.params, batch)
    return state.apply_gradients(grads), metric


train_step = jax.jit(train_step, static_argnums=(0, 1))

state = TrainState({"w": jnp.zeros((3, 1))})
batch = {"x": jnp.ones((4, 3)), "y": jnp.ones((4, 1))}
rng = jax.random.PRNGKey(42)
state, _ = train_step(state, rng, batch)
