# source: https://github.com/kazewong/flowMC/issues/133
# expect: JAX402
# line: 61
# observed: jax 0.10.2 CPU: `sample_loop` traced 10 times and `jit(scan)` compiled 10 times (JAX_LOG_COMPILES) for 10 calls of `sample` with the same shapes: `lax.scan` outside jit is given the bound method `self.sample_loop`, a new object on every call, so its cache never hits
# batch: 13
from math import ceil

import jax
import jax.numpy as jnp
from jax import random

TRACES = []


class AffineFlow:
    """Stand-in for the normalizing-flow model: sample and log_prob of an affine Gaussian."""

    def __init__(self, n_dim):
        self.shift = jnp.zeros(n_dim)
        self.log_scale = jnp.zeros(n_dim)

    def sample(self, rng_key, n_samples):
        z = random.normal(rng_key, (n_samples, self.shift.shape[0]))
        return self.shift + jnp.exp(self.log_scale) * z

    def log_prob(self, x):
        z = (x - self.shift) * jnp.exp(-self.log_scale)
        return jnp.sum(-0.5 * z**2 - self.log_scale - 0.5 * jnp.log(2 * jnp.pi), axis=-1)


class ProposalBase:
    def __init__(self, logpdf, jit):
        self.logpdf = logpdf
        self.jit = jit
        self.logpdf_vmap = jax.vmap(logpdf, in_axes=(0, None))


class NFProposal(ProposalBase):
    def __init__(self, logpdf, jit, model, n_sample_max=1000):
        super().__init__(logpdf, jit)
        self.model = model
        self.n_sample_max = n_sample_max

    def sample_loop(self, carry, position):
        """Sampling loop to avoid memory issue"""
        TRACES.append(1)
        key, data = carry
        key, subkey = random.split(key, 2)
        local_samples = self.model.sample(subkey, self.n_sample_max)
        log_prob_proposal = self.logpdf_vmap(local_samples, data)
        log_prob_nf_proposal = self.model.log_prob(local_samples)
        return (key, data), (local_samples, log_prob_proposal, log_prob_nf_proposal)

    def sample(self, rng_key, n_steps, initial_position, data):
        n_chains, n_dim = initial_position.shape
        rng_key, *subkeys = random.split(rng_key, 3)
        total_size = n_chains * n_steps
        if total_size > self.n_sample_max:
            n_batch = ceil(total_size / self.n_sample_max)
            local_position = jnp.zeros((n_batch, self.n_sample_max, n_dim))
            _, (proposal_position, log_prob_proposal, log_prob_nf_proposal) = jax.lax.scan(
                self.sample_loop, (subkeys[0], data), local_position
            )
            proposal_position = proposal_position.reshape(-1, n_dim)[:total_size]
        else:
            proposal_position = self.model.sample(subkeys[0], total_size)
        return rng_key, proposal_position.reshape(n_chains, n_steps, n_dim)


def log_posterior(x, data):
    return -0.5 * jnp.sum((x - data["mu"]) ** 2)


class Sampler:
    def __init__(self, global_sampler, n_loop_production=10, n_global_steps=50):
        self.global_sampler = global_sampler
        self.n_loop_production = n_loop_production
        self.n_global_steps = n_global_steps

    def production_run(self, rng_key, initial_position, data):
        for _ in range(self.n_loop_production):
            rng_key, positions = self.global_sampler.sample(rng_key, self.n_global_steps, initial_position, data)
            initial_position = positions[:, -1]
        return positions


n_dim, n_chains = 3, 100
sampler = Sampler(NFProposal(log_posterior, jit=True, model=AffineFlow(n_dim)))
data = {"mu": jnp.ones(n_dim)}
positions = sampler.production_run(random.PRNGKey(0), jnp.zeros((n_chains, n_dim)), data)
print("traces of sample_loop over", sampler.n_loop_production, "global sampling calls:", len(TRACES))
