# source: https://github.com/jax-ml/jax/issues/20914
# expect: JAX804
# line: 26
# observed: jax 0.10.2 CPU: ValueError at line 26: vmap in_axes must be ... a tuple of entries corresponding to the positional arguments ..., but got len(in_axes)=2, len(args)=1: the data bound by partial(..., x=self.data) is a keyword argument, which in_axes=(None, 0) does not cover
# batch: 11
from functools import partial

import jax
import jax.numpy as jnp


def log_likelihood(theta, x):
    """Gaussian log-likelihood of one observation row x under parameters theta = (mu, log_sigma)."""
    mu, log_sigma = theta[0], theta[1]
    return -0.5 * jnp.sum(((x - mu) / jnp.exp(log_sigma)) ** 2) - x.shape[0] * log_sigma


class Posterior:
    def __init__(self, data):
        self.data = data
        per_point = jax.vmap(log_likelihood, in_axes=(None, 0))
        self.log_lik = partial(per_point, x=self.data)

    def log_prob(self, theta):
        log_prior = -0.5 * jnp.sum(theta**2)
        return log_prior + jnp.sum(self.log_lik(theta))


def langevin(posterior, theta, key, steps=50, step_size=1e-3):
    grad_log_prob = jax.grad(posterior.log_prob)
    for _ in range(steps):
        key, sub = jax.random.split(key)
        noise = jax.random.normal(sub, theta.shape)
        theta = theta + step_size * grad_log_prob(theta) + jnp.sqrt(2 * step_size) * noise
    return theta


x_all = 1.5 + 0.7 * jax.random.normal(jax.random.PRNGKey(1), (3, 10))
posterior = Posterior(x_all)
print(posterior.log_prob(jnp.zeros(2)))
print(langevin(posterior, jnp.zeros(2), jax.random.PRNGKey(2)))
