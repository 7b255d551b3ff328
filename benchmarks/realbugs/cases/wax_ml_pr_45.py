# source: https://github.com/eserie/wax-ml/pull/45
# expect: JAX502
# line: 47
# observed: jax 0.10.2 CPU: the noisy module's noise is the same at all 5 time steps of the unrolled sequence (outputs minus inputs: -0.154437 five times): the scan body passes the rng it closes over to fun.apply on every step
# batch: 8
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
from jax.tree_util import tree_map


class TransformedWithState(NamedTuple):
    init: Callable
    apply: Callable


class UnrollTransformedWithState(NamedTuple):
    init: Callable
    apply: Callable


def noisy_filter():
    def init(rng, x):
        return {"scale": jnp.array(1.0)}, {"ema": jnp.zeros_like(x)}

    def apply(params, state, rng, x):
        noise = params["scale"] * jax.random.normal(rng, x.shape)
        return x + noise, {"ema": 0.9 * state["ema"] + 0.1 * x}

    return TransformedWithState(init, apply)


def unroll_transform_with_state(fun, skip_first=False):
    def init(rng, *args, **kwargs):
        xs = (args, kwargs)
        args_0, kwargs_0 = tree_map(lambda x: x[0], xs)
        return fun.init(rng, *args_0, **kwargs_0)

    def dynamic_apply_fn(params: Any, state: Any, rng, *args, **kwargs):
        xs = (args, kwargs)
        if skip_first:
            xs = tree_map(lambda x: x[1:], xs)

        def scan_f(prev_state, inputs):
            args_step, kwargs_step = inputs
            outputs, next_state = fun.apply(params, prev_state, rng, *args_step, **kwargs_step)
            return next_state, outputs

        final_state, output_sequence = jax.lax.scan(scan_f, init=state, xs=xs)
        return output_sequence, final_state

    return UnrollTransformedWithState(init, dynamic_apply_fn)


seq = jnp.arange(5.0)
model = unroll_transform_with_state(noisy_filter())
params, state = model.init(jax.random.PRNGKey(0), seq)
outputs, final_state = model.apply(params, state, jax.random.PRNGKey(1), seq)
print(outputs - seq)
