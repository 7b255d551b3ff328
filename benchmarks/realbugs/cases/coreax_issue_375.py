# source: https://github.com/gchq/coreax/issues/375
# expect: JAX502
# observed: jax 0.10.2 CPU: normal(PRNGKey(0)) is the same draw in each of the 10 loop iterations; only sigma scales it
# batch: 2
import jax.numpy as jnp
from jax import grad, lax, random


class SlicedScoreMatching:
    def __init__(self, num_noise_models=10, sigma=1.0, gamma=0.95):
        self.num_noise_models = num_noise_models
        self.sigmas = sigma * gamma ** jnp.arange(num_noise_models)

    def _loss(self, params, x):
        return jnp.mean((x @ params - x) ** 2)

    def _noise_conditional_loop_body(self, i, obj):
        params, x, total = obj
        sigma = self.sigmas[i]
        # the same perturbation on every call: the key is rebuilt from a constant seed
        noise = sigma * random.normal(random.PRNGKey(0), x.shape)
        total = total + self._loss(params, x + noise)
        return params, x, total

    def loss(self, params, x):
        _, _, total = lax.fori_loop(0, self.num_noise_models, self._noise_conditional_loop_body, (params, x, 0.0))
        return total


ssm = SlicedScoreMatching()
x = jnp.ones((8, 2))
print(grad(ssm.loss)(jnp.eye(2), x))
