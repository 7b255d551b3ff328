# source: https://github.com/jax-ml/jax/pull/181
# expect: JAX503
# line: 40
# observed: jax 0.10.2 CPU: the key carried to the next step, split(rng)[1], equals split(rng, 100)[1], a sample key already drawn from in update()
# batch: 1
import jax.numpy as np
from jax import grad, jit, random
from jax.scipy.stats import norm


def log_density(z):
    return norm.logpdf(z[0], 0.0, 1.35) + norm.logpdf(z[1], 0.0, np.exp(z[0]))


def elbo(params, t, rng):
    mean, log_std = params
    sample = mean + np.exp(log_std) * random.normal(rng, mean.shape)
    return log_density(sample) + np.sum(log_std)


def batch_elbo(params, t, rng, num_samples=100):
    rngs = random.split(rng, num_samples)
    return np.mean(np.array([elbo(params, t, r) for r in rngs[:4]]))


@jit
def update(t, params, rng):
    # uses rng itself: splits it into the per-sample keys
    grads = grad(lambda p: -batch_elbo(p, t, rng))(params)
    return tuple(p - 0.1 * g for p, g in zip(params, grads))


rng = random.PRNGKey(0)
params = (np.zeros(2), np.zeros(2))
for t in range(3):
    params = update(t, params, rng)
    # rng was already consumed by update(); splitting it again
    # hands the next step keys derived from the same parent
    old, rng = random.split(rng)
print(params)
