# source: https://github.com/rlouf/mcx/pull/29
# expect: JAX402
# line: 34
# observed: jax 0.10.2 CPU (load 30.8): 30 warmup steps trace the HMC kernel 30 times (kernel traces: 30) and take 74.5 s: hmc_kernel builds and jits a new closure over the adapted step size on every step
# batch: 11
import time

import jax
import jax.numpy as jnp

TRACES = 0


def logpdf(x):
    return -0.5 * jnp.sum((x - 1.0) ** 2 / jnp.array([1.0, 4.0]))


def velocity_verlet(logpdf, step_size, inverse_mass_matrix):
    grad_fn = jax.grad(logpdf)

    def integrate(q, p):
        p = p + 0.5 * step_size * grad_fn(q)
        q = q + step_size * inverse_mass_matrix * p
        p = p + 0.5 * step_size * grad_fn(q)
        return q, p

    return integrate


def hmc_kernel(logpdf, step_size, inverse_mass_matrix, num_steps=10):
    integrator = velocity_verlet(logpdf, step_size, inverse_mass_matrix)

    @jax.jit
    def kernel(key, q):
        global TRACES
        TRACES += 1
        k1, k2 = jax.random.split(key)
        p0 = jax.random.normal(k1, q.shape) / jnp.sqrt(inverse_mass_matrix)
        q_new, p_new = jax.lax.fori_loop(0, num_steps, lambda _, qp: integrator(*qp), (q, p0))
        h0 = -logpdf(q) + 0.5 * jnp.sum(inverse_mass_matrix * p0**2)
        h1 = -logpdf(q_new) + 0.5 * jnp.sum(inverse_mass_matrix * p_new**2)
        accept = jnp.log(jax.random.uniform(k2)) < h0 - h1
        return jnp.where(accept, q_new, q), jnp.minimum(1.0, jnp.exp(h0 - h1))

    return kernel


def stan_warmup(key, q, num_warmup=30, step_size=0.5):
    """Adapt the step size after every transition; the kernel closes over it."""
    inverse_mass_matrix = jnp.ones(2)
    for _ in range(num_warmup):
        key, sub = jax.random.split(key)
        kernel = hmc_kernel(logpdf, step_size, inverse_mass_matrix)
        q, accept_prob = kernel(sub, q)
        step_size = float(step_size * jnp.exp(0.5 * (accept_prob - 0.8)))
    return q, step_size


start = time.perf_counter()
q, step_size = stan_warmup(jax.random.PRNGKey(0), jnp.zeros(2))
print(f"warmup: {time.perf_counter() - start:.1f} s, step size {step_size:.3f}, kernel traces: {TRACES}")
