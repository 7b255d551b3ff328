# source: https://github.com/jax-ml/jax/issues/575
# expect: JAX407
# line: 30
# observed: jax 0.10.2 CPU (load 16-21): the first call of the jitted sampler did not finish in 300 s (timeout; XLA printed 'Very slow compile?' for jit_sample): the two Python loops (20 samples x 20 sites) are unrolled into 400 copies of the Metropolis step
# batch: 11
import time

import jax
import jax.numpy as jnp
from jax import jit, random

N = 20


def calc_e(factors, state):
    """Energy of a binary state under pairwise (J) and single-site (h) factors."""
    h, J = factors
    spins = 2 * state - 1
    return -(h @ spins) - 0.5 * spins @ J @ spins


@jit
def sample(factors, seed=0, n_samps=20):
    key = random.PRNGKey(seed)
    key, subkey = random.split(key)
    state = random.randint(subkey, minval=0, maxval=2, shape=(N,))

    all_states = []
    for _ in range(n_samps):
        all_states.append(state)
        for i in range(state.size):
            # flip sign
            state_flipped = state.at[i].set(1 - state[i])
            # calc energy difference
            dE = calc_e(factors, state_flipped) - calc_e(factors, state)
            key, subkey = random.split(key)
            accept = (dE < 0) | (random.uniform(subkey, ()) < jnp.exp(-dE))
            state = jnp.where(accept, state_flipped, state)
    return all_states


key = random.PRNGKey(1)
h = 0.1 * random.normal(key, (N,))
J = 0.1 * random.normal(random.fold_in(key, 1), (N, N))
factors = (h, (J + J.T) / 2)
for run in range(2):
    start = time.perf_counter()
    states = jax.block_until_ready(sample(factors))
    print(f"run {run}: {len(states)} samples in {time.perf_counter() - start:.2f} s")
