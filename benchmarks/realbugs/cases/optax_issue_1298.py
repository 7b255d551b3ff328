# source: https://github.com/google-deepmind/optax/issues/1298
# expect: JAX601, JAX402
# observed: jax 0.10.2 CPU: jit(<lambda>) compiled on each of the 2 calls (JAX_LOG_COMPILES); each reported time (0.30 s, 0.27 s) is the compile, and stops before the result is ready
# batch: 4
import time

import jax
import jax.numpy as jnp


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def step(carry):
    x, i = carry
    return x - 1e-3 * jax.grad(rosenbrock)(x), i + 1


def continuing_criterion(carry):
    x, i = carry
    return (i < 500) & (jnp.linalg.norm(jax.grad(rosenbrock)(x)) > 1e-6)


def run_optax_help(x0):
    init_carry = (x0, 0)
    # a new lambda each call: compiled again, inside the timed region
    while_loop = jax.jit(lambda carry: jax.lax.while_loop(continuing_criterion, step, carry))
    start = time.time()
    final_params, n_iter = while_loop(init_carry)
    return final_params, n_iter, time.time() - start


for method in ["Optax-help", "Optax-help"]:
    params, nit, seconds = run_optax_help(jnp.zeros(50))
    print(f"{method:12s} | {seconds:8.3f} | {int(nit):6d}")
