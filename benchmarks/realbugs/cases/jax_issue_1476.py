# source: https://github.com/jax-ml/jax/issues/1476
# expect: JAX101
# line: 19
# observed: jax 0.10.2 CPU: prints VmapTracer(aval=float32[2], batched=float32[8,2]) once instead of the samples
# batch: 4
from functools import partial

import jax.numpy as np
from jax import random, vmap
from jax.scipy.stats import norm


def diag_gaussian_sample(rng, mean, log_std):
    return mean + np.exp(log_std) * random.normal(rng, mean.shape)


def elbo(logprob, rng, mean, log_std):
    sample = diag_gaussian_sample(rng, mean, log_std)
    print(sample)
    return logprob(sample) - np.sum(norm.logpdf(sample, mean, np.exp(log_std)))


def batch_elbo(logprob, rng, params, num_samples):
    rngs = random.split(rng, num_samples)
    vectorized_elbo = vmap(partial(elbo, logprob), in_axes=(0, None, None))
    return np.mean(vectorized_elbo(rngs, *params))


target = lambda z: np.sum(norm.logpdf(z, 1.0, 0.5))
print(batch_elbo(target, random.PRNGKey(0), (np.zeros(2), np.zeros(2)), 8))
