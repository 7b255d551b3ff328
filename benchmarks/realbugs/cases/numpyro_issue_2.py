# source: https://github.com/pyro-ppl/numpyro/issues/2
# expect: JAX402
# line: 25
# observed: jax 0.10.2 CPU: JAX_LOG_COMPILES shows 'Compiling jit(loss_and_grads)' 6 times for the 6 svi.step calls: the @jit def is created anew inside every step
# batch: 8
import jax.numpy as np
from jax import jit, random, value_and_grad


def elbo(params, rng, data):
    eps = random.normal(rng, data.shape)
    z = params["loc"] + np.exp(params["log_scale"]) * eps
    return np.mean((data - z) ** 2) - params["log_scale"]


class SVI:
    def __init__(self, model, guide, loss, lr):
        self.model = model
        self.guide = guide
        self.loss = loss
        self.lr = lr

    def step(self, params, rng, *args):
        # jit the loss and gradient computation for speed
        @jit
        def loss_and_grads(params, rng, *args):
            return value_and_grad(self.loss)(params, rng, *args)

        loss, grads = loss_and_grads(params, rng, *args)
        params = {k: params[k] - self.lr * grads[k] for k in params}
        return loss, params


svi = SVI(model=None, guide=None, loss=elbo, lr=0.1)
params = {"loc": np.array(0.0), "log_scale": np.array(0.0)}
data = np.array([1.0, 2.0, 3.0])
rng = random.PRNGKey(0)
for i in range(6):
    rng, rng_step = random.split(rng)
    loss, params = svi.step(params, rng_step, data)
    print(i, float(loss))
