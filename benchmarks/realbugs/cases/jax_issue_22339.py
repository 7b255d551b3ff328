# source: https://github.com/jax-ml/jax/issues/22339
# expect: JAX804
# observed: jax 0.10.2 CPU: ValueError at line 28 (the call through the partial bound in __init__ with x= as a keyword): vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=2, len(args)=1
# batch: 12
from functools import partial

import jax
import jax.numpy as jnp
from jax import vmap


@partial(vmap, in_axes=(None, 0))
def point_log_likelihood(theta, x):
    """Log-density of one observation under a two-component mixture with means theta."""
    log_w = jnp.log(jnp.array([0.3, 0.7]))
    comps = -0.5 * (x - theta) ** 2 - 0.5 * jnp.log(2 * jnp.pi)
    return jax.scipy.special.logsumexp(log_w + comps)


class MixtureFit:
    def __init__(self, data, lr=1e-2):
        self.data = data
        self.lr = lr
        self.log_lik = partial(point_log_likelihood, x=self.data)

    def objective(self, theta):
        return -jnp.mean(self.log_lik(theta))

    def fit(self, theta, n_steps=100):
        grad_fn = jax.jit(jax.grad(self.objective))
        for _ in range(n_steps):
            theta = theta - self.lr * grad_fn(theta)
        return theta


data = jnp.concatenate([jax.random.normal(jax.random.PRNGKey(0), (300,)) - 2.0,
                        jax.random.normal(jax.random.PRNGKey(1), (700,)) + 2.0])
print(MixtureFit(data).fit(jnp.array([-1.0, 1.0])))
