# source: https://github.com/QuantEcon/lecture-jax/issues/33
# expect: JAX407
# line: 20
# observed: jax 0.10.2 CPU: the loop is unrolled at trace time: the run takes 12 s with n=20, 21 s with n=50, and does not finish in 60 s with n=200 (XLA prints "Very slow compile?")
# batch: 4
import jax
import jax.numpy as jnp


def update_states_jax(x, z, a, b, key):
    key, sub = jax.random.split(key)
    eps = jax.random.normal(sub)
    return a * x + b * z + eps, key


def wealth_time_series_for_loop_jax(w_0, n, a, b, key):
    w = jnp.zeros(n)
    w = w.at[0].set(w_0)
    z = 1.0
    for t in range(n - 1):
        new_w, key = update_states_jax(w[t], z, a, b, key)
        w = w.at[t + 1].set(new_w)
    return w


# Create the jit function
wealth_time_series_for_loop_jax = jax.jit(wealth_time_series_for_loop_jax, static_argnums=(1, 3))
w = wealth_time_series_for_loop_jax(1.0, 50, 0.5, 0.1, jax.random.PRNGKey(0))
print(w[-3:])
