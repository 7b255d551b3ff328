# source: https://github.com/google/dopamine/issues/189
# expect: JAX502
# line: 22
# observed: jax 0.10.2 CPU: both apply() calls print the same values ([-1.1145415 -0.18976308 2.0063043]): the noise never changes
# batch: 2
import jax
import jax.numpy as jnp
import numpy as np


class NoisyNetwork:
    def __init__(self, rng_key, eval_mode=False):
        self.rng_key = rng_key
        self.eval_mode = eval_mode

    def init(self, rng, x, features):
        k1, k2 = jax.random.split(rng)
        return {"mu_w": jax.random.normal(k1, (x.shape[-1], features)), "sigma_w": 0.5 * jnp.ones((x.shape[-1], features))}

    def apply(self, params, x, features):
        # the same key on every call: the "noise" never changes
        eps = jax.random.normal(self.rng_key, (x.shape[-1], features))
        w = params["mu_w"] + params["sigma_w"] * eps
        return x @ w


rng = jax.random.PRNGKey(1)
rng, rng_net_def, rng_net_param = jax.random.split(rng, num=3)
net_def = NoisyNetwork(rng_key=rng_net_def, eval_mode=False)
net_params = net_def.init(rng_net_param, x=np.zeros(10), features=3)
state = np.random.random(10)
for _ in range(2):
    print(net_def.apply(net_params, x=state, features=3))
