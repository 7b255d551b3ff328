# source: https://github.com/pymc-devs/pymc/issues/6550
# expect: JAX601
# line: 55
# observed: jax 0.10.2 CPU (2 shared cores, load 30.4): 'Sampling time = 0:00:00.018560' for 4 chains x 1000 draws on 300k points, then 'Transformation time = 0:00:01.512516' for two np.asarray conversions: tic3 is read when the vmapped sampler is only dispatched, so the sampling is billed to the transformation that first waits for the states (the report: 9.8 s sampling, 2 min 29 s transformation)
# batch: 11
from datetime import datetime

import jax
import jax.numpy as jnp
import numpy as np


def get_jaxified_logp(observed):
    """The model's log density, built from the graph: x ~ Normal(mu, sigma), mu ~ N(0, 1), sigma ~ HalfCauchy(1)."""

    def logp(position):
        mu, log_sigma = position["mu"], position["log_sigma"]
        sigma = jnp.exp(log_sigma)
        prior = -0.5 * mu**2 - jnp.log1p(sigma**2) + log_sigma
        return prior + jnp.sum(-0.5 * ((observed - mu) / sigma) ** 2 - jnp.log(sigma))

    return logp


def get_posterior_samples(logp, key, init_position, draws, step_size=0.002):
    """Random-walk Metropolis, the whole chain in one lax.scan."""

    def one_step(carry, key):
        position, lp = carry
        k1, k2, k3 = jax.random.split(key, 3)
        proposal = {"mu": position["mu"] + step_size * jax.random.normal(k1),
                    "log_sigma": position["log_sigma"] + step_size * jax.random.normal(k2)}
        proposal_lp = logp(proposal)
        accept = jnp.log(jax.random.uniform(k3)) < proposal_lp - lp
        position = jax.tree_util.tree_map(lambda p, q: jnp.where(accept, p, q), proposal, position)
        return (position, jnp.where(accept, proposal_lp, lp)), position

    _, states = jax.lax.scan(one_step, (init_position, logp(init_position)), jax.random.split(key, draws))
    return states


def sample_blackjax_nuts(observed, draws=1000, chains=4, random_seed=0):
    tic1 = datetime.now()
    print("Compiling...")
    logp = get_jaxified_logp(jnp.asarray(observed))
    keys = jax.random.split(jax.random.PRNGKey(random_seed), chains)
    init = {"mu": jnp.zeros(chains), "log_sigma": jnp.zeros(chains)}
    run = jax.jit(jax.vmap(lambda key, position: get_posterior_samples(logp, key, position, draws)))
    run = run.lower(keys, init).compile()
    tic2 = datetime.now()
    print("Compilation time = ", tic2 - tic1)

    print("Sampling...")
    states = run(keys, init)
    tic3 = datetime.now()
    print("Sampling time = ", tic3 - tic2)

    print("Transforming variables...")
    posterior = {"mu": np.asarray(states["mu"]), "sigma": np.asarray(jnp.exp(states["log_sigma"]))}
    tic4 = datetime.now()
    print("Transformation time = ", tic4 - tic3)
    return posterior


x = np.random.default_rng(0).normal(0, 1, 300_000).astype(np.float32)
trace = sample_blackjax_nuts(x)
print("posterior mean of sigma:", trace["sigma"][:, 500:].mean())
