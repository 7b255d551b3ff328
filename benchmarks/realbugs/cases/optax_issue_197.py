# source: https://github.com/google-deepmind/optax/issues/197
# expect: JAX403
# line: 65
# observed: jax 0.10.2 CPU: three runs on the same problem shapes compile jit(train) three times (traces: 3), the third with the same settings as the first: each run builds a new sgd() transformation, whose closures hash and compare by identity as a static argument, so no run hits the cache
# batch: 10
from functools import partial
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp


class GradientTransformation(NamedTuple):
    init: Callable
    update: Callable


def sgd(learning_rate, momentum=0.9):
    def init_fn(params):
        return jax.tree_util.tree_map(jnp.zeros_like, params)

    def update_fn(grads, state, params=None):
        state = jax.tree_util.tree_map(lambda m, g: momentum * m + g, state, grads)
        return jax.tree_util.tree_map(lambda m: -learning_rate * m, state), state

    return GradientTransformation(init_fn, update_fn)


TRACES = 0


@partial(jax.jit, static_argnames=("gradient_transformation", "n_iterations"))
def train(params, inputs, targets, gradient_transformation, n_iterations):
    global TRACES
    TRACES += 1

    def loss(p):
        return jnp.mean((jnp.tanh(inputs @ p["w1"]) @ p["w2"] - targets) ** 2)

    def step(carry, _):
        p, opt_state = carry
        value, grads = jax.value_and_grad(loss)(p)
        updates, opt_state = gradient_transformation.update(grads, opt_state, p)
        return (jax.tree_util.tree_map(jnp.add, p, updates), opt_state), value

    (params, _), losses = jax.lax.scan(step, (params, gradient_transformation.init(params)), None, length=n_iterations)
    return params, losses


class Problem:
    def __init__(self, n_inputs, key):
        k1, k2, k3 = jax.random.split(key, 3)
        self.inputs = jax.random.normal(k1, (256, n_inputs))
        self.targets = jnp.sin(self.inputs.sum(axis=1, keepdims=True))
        self.params = {"w1": 0.3 * jax.random.normal(k2, (n_inputs, 32)), "w2": 0.3 * jax.random.normal(k3, (32, 1))}


class Solution:
    def __init__(self, learning_rate, momentum, n_iterations=200):
        self.learning_rate, self.momentum, self.n_iterations = learning_rate, momentum, n_iterations


def run_simulation(problem, solution):
    tx = sgd(solution.learning_rate, solution.momentum)
    return train(problem.params, problem.inputs, problem.targets, gradient_transformation=tx, n_iterations=solution.n_iterations)


problem = Problem(8, jax.random.PRNGKey(0))
jax.config.update("jax_log_compiles", True)
for settings in [(0.05, 0.9), (0.02, 0.9), (0.05, 0.9)]:  # the user adjusts parameters and reruns
    _, losses = run_simulation(problem, Solution(*settings))
    print(settings, float(losses[-1]))
print("traces:", TRACES)
