# source: https://github.com/google-deepmind/optax/issues/328
# expect: JAX403
# line: 20
# observed: jax 0.10.2 CPU: JAX_LOG_COMPILES shows 'Compiling jit(integer_pow)' on the scalar decay 6 times in 6 un-jitted update steps (plus once for g ** 2): decay ** count on a concrete count makes the count integer_pow's static exponent, a new one every step
# batch: 8
from typing import NamedTuple

import jax
import jax.numpy as jnp


class ScaleByAdamState(NamedTuple):
    count: jax.Array
    mu: dict
    nu: dict


def _bias_correction(moment, decay, count):
    """Perform bias correction. This becomes a no-op as count goes to infinity."""
    bias_correction_ = 1 - decay ** count
    return jax.tree_util.tree_map(lambda t: t / bias_correction_.astype(t.dtype), moment)


def scale_by_adam(b1=0.9, b2=0.999, eps=1e-8):
    def init_fn(params):
        mu = jax.tree_util.tree_map(jnp.zeros_like, params)
        nu = jax.tree_util.tree_map(jnp.zeros_like, params)
        return ScaleByAdamState(count=jnp.zeros([], jnp.int32), mu=mu, nu=nu)

    def update_fn(updates, state, params=None):
        mu = jax.tree_util.tree_map(lambda g, t: (1 - b1) * g + b1 * t, updates, state.mu)
        nu = jax.tree_util.tree_map(lambda g, t: (1 - b2) * g ** 2 + b2 * t, updates, state.nu)
        count_inc = state.count + 1
        mu_hat = _bias_correction(mu, b1, count_inc)
        nu_hat = _bias_correction(nu, b2, count_inc)
        updates = jax.tree_util.tree_map(lambda m, v: -1e-2 * m / (jnp.sqrt(v) + eps), mu_hat, nu_hat)
        return updates, ScaleByAdamState(count=count_inc, mu=mu, nu=nu)

    return init_fn, update_fn


def loss(params):
    return jnp.sum(params["w"] ** 2)


params = {"w": jnp.ones(3)}
init_fn, update_fn = scale_by_adam()
opt_state = init_fn(params)
for i in range(6):
    grads = jax.grad(loss)(params)
    updates, opt_state = update_fn(grads, opt_state)
    params = jax.tree_util.tree_map(lambda p, u: p + u, params, updates)
print(params)
