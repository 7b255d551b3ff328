# source: https://github.com/jax-ml/jax/issues/1421
# expect: JAX402
# line: 31
# observed: jax 0.10.2 CPU (load 16): run_mh is traced 6 times for 6 calls of ais_jax (traces: 6), and each JAX run takes 38-175 times as long as the NumPy reference: the @jax.jit function is defined anew inside ais_jax, so every call compiles it again
# batch: 11
import time

import jax
import jax.numpy as jnp
import numpy as np

TRACES = 0


def energy(J, h, state):
    return -0.5 * state @ J @ state - h @ state


def ais_numpy(J, h, betas, K, rng):
    """Reference: log Z estimate of an Ising model by annealed importance sampling, in NumPy."""
    N = h.shape[0]
    states = rng.choice([-1.0, 1.0], size=(K, N))
    log_w = np.zeros(K)
    for b0, b1 in zip(betas[:-1], betas[1:]):
        log_w += -(b1 - b0) * np.array([-0.5 * s @ J @ s - h @ s for s in states])
    return np.log(np.mean(np.exp(log_w - log_w.max()))) + log_w.max() + N * np.log(2)


def ais_jax(J, h, betas, K, key):
    @jax.jit
    def run_mh(states, beta, key):
        global TRACES
        TRACES += 1
        flip = jax.random.randint(key, (states.shape[0],), 0, states.shape[1])
        proposal = states.at[jnp.arange(states.shape[0]), flip].multiply(-1.0)
        delta = jax.vmap(lambda p, s: energy(J, h, p) - energy(J, h, s))(proposal, states)
        u = jax.random.uniform(jax.random.fold_in(key, 1), (states.shape[0],))
        return jnp.where((jnp.log(u) < -beta * delta)[:, None], proposal, states)

    N = h.shape[0]
    key, sub = jax.random.split(key)
    states = jnp.where(jax.random.bernoulli(sub, 0.5, (K, N)), 1.0, -1.0)
    log_w = jnp.zeros(K)
    for b0, b1 in zip(betas[:-1], betas[1:]):
        log_w = log_w - (b1 - b0) * jax.vmap(lambda s: energy(J, h, s))(states)
        key, sub = jax.random.split(key)
        states = run_mh(states, b1, sub)
    return jax.scipy.special.logsumexp(log_w) - jnp.log(K) + N * jnp.log(2.0)


betas = np.linspace(0.0, 1.0, 20)
for N in (20, 30):
    rng = np.random.default_rng(N)
    J = rng.normal(scale=0.1, size=(N, N))
    J = (J + J.T) / 2
    h = rng.normal(scale=0.1, size=N)
    for trial in range(3):
        t0 = time.perf_counter()
        ais_numpy(J, h, betas, 200, rng)
        t1 = time.perf_counter()
        log_z = ais_jax(jnp.asarray(J), jnp.asarray(h), betas, 200, jax.random.PRNGKey(trial))
        log_z.block_until_ready()
        t2 = time.perf_counter()
        print(f"N={N}, trial={trial}: jax_time/numpy_time = {(t2 - t1) / (t1 - t0):.2f}")
print("traces of run_mh:", TRACES)
