# source: https://github.com/google-deepmind/optax/issues/1171
# expect: JAX402
# line: 36
# observed: jax 0.10.2 CPU: JAX_LOG_COMPILES shows 'Compiling jit(while)' 5 times in 5 optimisation steps: cond_fn and body_fn are new closures on every update call, so the eager lax.while_loop is traced and compiled again each step
# batch: 8
from typing import NamedTuple

import jax
import jax.numpy as jnp


class ScaleByBacktrackingLinesearchState(NamedTuple):
    learning_rate: jax.Array
    value: jax.Array


def scale_by_backtracking_linesearch(max_backtracking_steps, slope_rtol=1e-4, decrease_factor=0.8):
    def init_fn(params):
        return ScaleByBacktrackingLinesearchState(learning_rate=jnp.array(1.0), value=jnp.array(jnp.inf))

    def update_fn(updates, state, params, *, value, grad, value_fn):
        slope = -jnp.sum(grad * updates)

        def cond_fn(carry):
            iter_num, learning_rate, new_value = carry
            sufficient_decrease = new_value <= value + slope_rtol * learning_rate * slope
            return (iter_num < max_backtracking_steps) & ~sufficient_decrease

        def body_fn(carry):
            iter_num, learning_rate, _ = carry
            learning_rate = decrease_factor * learning_rate
            new_value = value_fn(params + learning_rate * updates)
            return iter_num + 1, learning_rate, new_value

        init_value = value_fn(params + state.learning_rate * updates)
        _, learning_rate, new_value = jax.lax.while_loop(
            cond_fn, body_fn, (0, state.learning_rate, init_value)
        )
        new_updates = learning_rate * updates
        return new_updates, ScaleByBacktrackingLinesearchState(learning_rate, new_value)

    return init_fn, update_fn


def value_fn(params):
    return jnp.sum((params - jnp.arange(3.0)) ** 2) + jnp.sum(params ** 4)


init_fn, update_fn = scale_by_backtracking_linesearch(max_backtracking_steps=15)
params = jnp.zeros(3)
opt_state = init_fn(params)
for step in range(5):
    value, grad = jax.value_and_grad(value_fn)(params)
    updates, opt_state = update_fn(-grad, opt_state, params, value=value, grad=grad, value_fn=value_fn)
    params = params + updates
    print(step, float(value))
