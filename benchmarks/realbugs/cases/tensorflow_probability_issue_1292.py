# source: https://github.com/tensorflow/probability/issues/1292
# expect: JAX704
# line: 18
# observed: jax 0.10.2 CPU: OverflowError at line 18: Python int too large to convert to C long (the salt is a 512-bit integer from sha512; jax.random.fold_in takes a 32-bit value)
# batch: 12
import hashlib

import jax
import jax.numpy as jnp


def sanitize_seed(seed, salt=None):
    """samplers.sanitize_seed on the JAX substrate: an int seed becomes a key, a salt string is folded in."""
    if isinstance(seed, int):
        seed = jax.random.PRNGKey(seed)
    if salt is not None:
        salt = int(hashlib.sha512(str(salt).encode("utf-8")).hexdigest(), 16)
        seed = jax.random.fold_in(seed, salt)
    return seed


def random_walk_metropolis(target_log_prob, current_state, step_size, seed):
    proposal_seed, accept_seed = jax.random.split(seed)
    proposal = current_state + step_size * jax.random.normal(proposal_seed, current_state.shape)
    log_accept = target_log_prob(proposal) - target_log_prob(current_state)
    accept = jnp.log(jax.random.uniform(accept_seed)) < log_accept
    return jnp.where(accept, proposal, current_state)


def sample_chain(num_results, current_state, target_log_prob, step_size=0.5, seed=None):
    seed = sanitize_seed(seed, salt="mcmc.sample_chain")

    def step(state, key):
        new_state = random_walk_metropolis(target_log_prob, state, step_size, key)
        return new_state, new_state

    _, samples = jax.lax.scan(step, current_state, jax.random.split(seed, num_results))
    return samples


samples = sample_chain(500, jnp.zeros(2), lambda x: -0.5 * jnp.sum(x ** 2), seed=jax.random.PRNGKey(0))
print(samples.mean(axis=0))
