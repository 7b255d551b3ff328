# source: https://github.com/jax-ml/jax/issues/28110
# expect: JAX801
# line: 36
# observed: jax 0.10.2 CPU: TypeError at line 36 "Gradient only defined for scalar-output functions. Output had shape: (1,)": t is (128, 1), so under the vmap each f(t) takes a (1,) input and the network's last layer (w3 of shape (32, 1)) returns shape (1,); raised while tracing the jitted train_step
# batch: 13
import jax
import jax.numpy as jnp


class MLP:
    """A small tanh network t -> x(t): in 1 feature, out 1 feature (the reporter's nnx.Module)."""

    def __init__(self, key, din=1, dhidden=32, dout=1):
        k1, k2, k3 = jax.random.split(key, 3)
        self.params = {
            "w1": jax.random.normal(k1, (din, dhidden)) / jnp.sqrt(din), "b1": jnp.zeros(dhidden),
            "w2": jax.random.normal(k2, (dhidden, dhidden)) / jnp.sqrt(dhidden), "b2": jnp.zeros(dhidden),
            "w3": jax.random.normal(k3, (dhidden, dout)) / jnp.sqrt(dhidden), "b3": jnp.zeros(dout),
        }

    @staticmethod
    def apply(params, t):
        h = jnp.tanh(t @ params["w1"] + params["b1"])
        h = jnp.tanh(h @ params["w2"] + params["b2"])
        return h @ params["w3"] + params["b3"]


OMEGA = 2.0


def residual_loss(params, t):
    def f(t):
        return MLP.apply(params, t)

    x = jax.vmap(f)(t)
    x_tt = jax.vmap(jax.grad(jax.grad(f)))(t)
    physics = x_tt + OMEGA**2 * x
    x0 = f(jnp.zeros((1,)))
    v0 = jax.grad(lambda s: f(s)[0])(jnp.zeros((1,)))
    return jnp.mean(physics**2) + (x0[0] - 1.0) ** 2 + v0[0] ** 2


@jax.jit
def train_step(params, t, lr=1e-3):
    loss, grads = jax.value_and_grad(residual_loss)(params, t)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), loss


model = MLP(jax.random.PRNGKey(0))
t = jnp.linspace(0.0, 2.0, 128)[:, None]
params = model.params
try:
    for step in range(100):
        params, loss = train_step(params, t)
    print(loss)
except TypeError as e:
    print("TypeError:", str(e).splitlines()[0])
