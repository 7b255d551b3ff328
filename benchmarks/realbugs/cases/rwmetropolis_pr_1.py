# source: https://github.com/rlouf/blog-benchmark-rwmetropolis/pull/1
# expect: JAX502, JAX501
# observed: jax 0.10.2 CPU: samples [-0.00283 -0.00566 -0.00849 -0.01132 -0.01415]: the same proposal (-0.00283) on every step; normal and uniform also share the key
# batch: 3
from functools import partial

import jax
import jax.numpy as np
from jax.scipy.stats import norm


@partial(jax.jit, static_argnums=(1,))
def rw_metropolis_kernel(rng_key, logpdf, position, log_prob):
    """Moves the chains by one step using the Random Walk Metropolis algorithm."""
    move_proposals = jax.random.normal(rng_key, shape=position.shape) * 0.1
    proposal = position + move_proposals
    proposal_log_prob = logpdf(proposal)

    log_uniform = np.log(jax.random.uniform(rng_key))
    do_accept = log_uniform < proposal_log_prob - log_prob

    position = np.where(do_accept, proposal, position)
    log_prob = np.where(do_accept, proposal_log_prob, log_prob)
    return position, log_prob


def rw_metropolis_sampler(logpdf, n_samples, initial_position, rng_key):
    position = initial_position
    log_prob = logpdf(initial_position)
    samples = []
    for i in range(n_samples):
        position, log_prob = rw_metropolis_kernel(rng_key, logpdf, position, log_prob)
        samples.append(position)
    return np.stack(samples)


def mixture_logpdf(x):
    return np.sum(np.log(0.3 * norm.pdf(x, -2.0, 1.0) + 0.7 * norm.pdf(x, 2.0, 1.0)))


samples = rw_metropolis_sampler(mixture_logpdf, 5, np.zeros(1), jax.random.PRNGKey(42))
print(samples.ravel())
