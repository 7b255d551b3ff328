# source: https://github.com/qiskit-community/qiskit-experiments/issues/1192
# expect: JAX601
# line: 40
# observed: jax 0.10.2 CPU: 665 us per loop reported; 1358 us per loop with block_until_ready on the result
# batch: 4
import timeit

import jax.numpy as jnp
import numpy as np
from jax import jit
from jax.scipy.optimize import minimize


def function(x, a, f, b):
    return np.exp(-a * x) * np.sin(2 * np.pi * f * x) + b


def data_factory(a, f, b, n=200):
    x = np.linspace(0, 10, n)
    return x, function(x, a, f, b) + 0.01 * np.random.randn(n)


true_params = (0.3, 0.5, 0.1)
init_guess = (0.2, 0.45, 0.0)
x, y = data_factory(*true_params)
x_jax = jnp.array(x, dtype=jnp.float32)
y_jax = jnp.array(y, dtype=jnp.float32)
init_guess_jax = jnp.array(init_guess, dtype=jnp.float32)


def residual(params):
    return jnp.sum(jnp.square(y_jax - jnp.exp(-params[0] * x_jax) * jnp.sin(2 * np.pi * params[1] * x_jax) - params[2]))


@jit
def min_op(x0):
    return minimize(residual, x0, method="BFGS", options=dict(gtol=1e-6))


jax_res = min_op(init_guess_jax)  # warm up
per_call = timeit.timeit(lambda: min_op(init_guess_jax), number=100) / 100
print(f"{per_call * 1e6:.1f} us per loop")
