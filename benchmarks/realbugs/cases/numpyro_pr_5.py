# source: https://github.com/pyro-ppl/numpyro/pull/5
# expect: JAX502
# observed: jax 0.10.2 CPU: the guide's standard-normal noise is 2.6262152 at all 5 SVI steps: svi_update gets the same rng every iteration, so the ELBO is estimated from one fixed sample
# batch: 8
import jax.numpy as np
from jax import grad, jit, random


def model(params, rng, data):
    z = params["z"]
    return np.sum(-0.5 * (data - z) ** 2) - 0.5 * z ** 2


def guide(params, rng):
    eps = random.normal(rng)
    z = params["loc"] + np.exp(params["log_scale"]) * eps
    return z, eps, params["log_scale"]


def elbo(params, rng, data):
    rng_model, rng_guide = random.split(rng)
    z, eps, log_scale = guide(params, rng_guide)
    log_joint = model({"z": z}, rng_model, data)
    entropy = log_scale
    return -(log_joint + entropy), eps


def svi(loss, step_size):
    def init_fn(params):
        return params

    @jit
    def update_fn(i, rng, opt_state, data):
        (loss_val, eps), g = loss_and_grad(opt_state, rng, data)
        opt_state = {k: opt_state[k] - step_size * g[k] for k in opt_state}
        return loss_val, eps, opt_state

    def loss_and_grad(params, rng, data):
        return loss(params, rng, data), grad(lambda p: loss(p, rng, data)[0])(params)

    return init_fn, update_fn


data = np.array([0.5, 1.0, 1.5])
svi_init, svi_update = svi(elbo, step_size=0.05)
opt_state = svi_init({"loc": np.array(0.0), "log_scale": np.array(0.0)})
rng = random.PRNGKey(2)
for i in range(5):
    loss, eps, opt_state = svi_update(i, rng, opt_state, data)
    print(i, float(loss), float(eps))
