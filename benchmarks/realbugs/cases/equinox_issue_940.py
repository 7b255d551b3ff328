# source: https://github.com/patrick-kidger/equinox/issues/940
# expect: JAX403
# line: 75
# observed: jax 0.10.2 CPU: `step` is traced once per test (printed traces: 2 after two tests with identical settings): each test builds its optimizer with `make_adam(1e-3)`, a new NamedTuple of closures (as optax's GradientTransformation), and passes it as the static `opt`; equal settings give unequal, differently hashed objects, so the compilation cache misses
# batch: 14
from functools import partial
from typing import NamedTuple, Callable

import jax
import jax.numpy as jnp


class GradientTransformation(NamedTuple):
    init: Callable
    update: Callable


def make_adam(learning_rate, b1=0.9, b2=0.999, eps=1e-8):
    """An optax-style optimizer: a pair of closures over its hyperparameters."""

    def init_fn(params):
        zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
        return (zeros, zeros, jnp.zeros((), jnp.int32))

    def update_fn(grads, state, params=None):
        mu, nu, count = state
        count = count + 1
        mu = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, mu, grads)
        nu = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g**2, nu, grads)
        mu_hat = jax.tree_util.tree_map(lambda m: m / (1 - b1**count), mu)
        nu_hat = jax.tree_util.tree_map(lambda v: v / (1 - b2**count), nu)
        updates = jax.tree_util.tree_map(lambda m, v: -learning_rate * m / (jnp.sqrt(v) + eps), mu_hat, nu_hat)
        return updates, (mu, nu, count)

    return GradientTransformation(init_fn, update_fn)


class Simple:
    def __init__(self, key):
        wkey, bkey = jax.random.split(key)
        self.params = {"w": jax.random.normal(wkey, (10, 1)) * 0.1, "b": jnp.zeros((1,))}

    @staticmethod
    def apply(params, x):
        return x @ params["w"] + params["b"]


def loss_fn(params, x, y):
    y_pred = Simple.apply(params, x)
    return jnp.mean((y - y_pred) ** 2)


TRACES = []


@partial(jax.jit, static_argnames=("opt",))
def step(params, opt_state, x, y, opt):
    TRACES.append(1)
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = opt.update(grads, opt_state, params)
    params = jax.tree_util.tree_map(lambda p, u: p + u, params, updates)
    return params, opt_state, loss


def run_test(seed):
    key = jax.random.PRNGKey(seed)
    key1, key2 = jax.random.split(key)
    model = Simple(key1)
    x = jax.random.normal(key2, (32, 10))
    y = x.sum(axis=1, keepdims=True)
    opt = make_adam(1e-3)
    opt_state = opt.init(model.params)
    params = model.params
    for _ in range(3):
        params, opt_state, loss = step(params, opt_state, x, y, opt)
    return loss


def test_no_closure_two_opts():
    run_test(0)
    run_test(1)


test_no_closure_two_opts()
print("traces of step:", len(TRACES))
