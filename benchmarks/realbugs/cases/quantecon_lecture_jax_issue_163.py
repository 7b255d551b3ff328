# source: https://github.com/QuantEcon/lecture-jax/issues/163
# expect: JAX601
# line: 40
# observed: jax 0.10.2 CPU: 1.7 s reported, 1.3 s with block_until_ready (noisy 2-core machine: the 200 dispatches dominate, the unblocked tail is small here)
# batch: 1
import time

import jax
import jax.numpy as jnp


def create_consumption_model(R=1.01, beta=0.98, gamma=2.5, w_size=200, y_size=50):
    w_grid = jnp.linspace(1e-2, 10.0, w_size)
    y_grid = jnp.linspace(0.5, 1.5, y_size)
    Q = jnp.full((y_size, y_size), 1.0 / y_size)
    return (beta, R, gamma), (w_grid, y_grid, Q)


@jax.jit
def B(v, constants, arrays):
    beta, R, gamma = constants
    w_grid, y_grid, Q = arrays
    c = R * w_grid[:, None, None] + y_grid[None, :, None] - w_grid[None, None, :]
    u = jnp.where(c > 0, c ** (1 - gamma) / (1 - gamma), -jnp.inf)
    EV = v @ Q.T
    return u + beta * EV.T[None, :, :]


def value_iteration(model, max_iter=200):
    constants, arrays = model
    v = jnp.zeros((arrays[0].size, arrays[1].size))
    for _ in range(max_iter):
        v = jnp.max(B(v, constants, arrays), axis=-1)
    return v


model = create_consumption_model()
start = time.time()
v_star = value_iteration(model)
elapsed = time.time() - start
print(f"VFI took {elapsed:.3f} s")
