# source: https://github.com/google-deepmind/optax/issues/503
# expect: JAX102
# observed: jax 0.10.2 CPU: with jax.check_tracer_leaks() the jitted not_ok_example raises "Leaked trace" while ok_example passes; without the check, the first apply_gradients outside jit fails with UnexpectedTracerError: the schedule closure built inside the jitted create keeps the jnp arrays bounds / values (tracers) and leaves jit in the static tx field of the state
# batch: 9
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp


class GradientTransformation(NamedTuple):
    init: Callable
    update: Callable


def linear_schedule(init_value, end_value, transition_steps):
    def schedule(count):
        frac = 1 - jnp.clip(count, 0, transition_steps) / transition_steps
        return (init_value - end_value) * frac + end_value

    return schedule


def piecewise_interpolate_schedule(interpolate_type, init_value, boundaries_and_scales):
    boundaries, scales = zip(*sorted(boundaries_and_scales.items()))
    bounds = jnp.stack((0,) + boundaries)
    values = jnp.cumprod(jnp.stack((init_value,) + scales))
    interval_sizes = bounds[1:] - bounds[:-1]

    def schedule(count):
        indicator = (bounds[:-1] <= count) & (count < bounds[1:])
        pct = (count - bounds[:-1]) / interval_sizes
        interp_vals = values[:-1] + pct * (values[1:] - values[:-1])
        return indicator.dot(interp_vals) + (bounds[-1] <= count) * values[-1]

    return schedule


def scale_by_schedule(step_size_fn):
    def init_fn(params):
        return jnp.zeros([], jnp.int32)

    def update_fn(updates, count, params=None):
        step_size = step_size_fn(count)
        return jax.tree_util.tree_map(lambda g: step_size * g, updates), count + 1

    return GradientTransformation(init_fn, update_fn)


class TrainState:
    def __init__(self, step, apply_fn, params, tx, opt_state):
        self.step, self.apply_fn, self.params, self.tx, self.opt_state = step, apply_fn, params, tx, opt_state

    @classmethod
    def create(cls, *, apply_fn, params, tx):
        return cls(0, apply_fn, params, tx, tx.init(params))

    def apply_gradients(self, grads):
        updates, opt_state = self.tx.update(grads, self.opt_state, self.params)
        params = jax.tree_util.tree_map(lambda p, u: p - u, self.params, updates)
        return TrainState(self.step + 1, self.apply_fn, params, self.tx, opt_state)


jax.tree_util.register_pytree_node(
    TrainState,
    lambda s: ((s.step, s.params, s.opt_state), (s.apply_fn, s.tx)),
    lambda aux, ch: TrainState(ch[0], aux[0], ch[1], aux[1], ch[2]),
)


@jax.jit
def ok_example() -> TrainState:
    return TrainState.create(
        apply_fn=lambda *_: None,
        params=jnp.zeros(5),
        tx=scale_by_schedule(linear_schedule(init_value=0.0, end_value=1.0, transition_steps=100)),
    )


@jax.jit
def not_ok_example() -> TrainState:
    return TrainState.create(
        apply_fn=lambda *_: None,
        params=jnp.zeros(5),
        tx=scale_by_schedule(
            piecewise_interpolate_schedule("linear", init_value=1.0, boundaries_and_scales={10: 2.0})
        ),
    )


with jax.check_tracer_leaks():
    ok_example()
    print("First example OK!")

try:
    with jax.check_tracer_leaks():
        not_ok_example()
        print("Second example OK!")
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0][:80])

state = not_ok_example()
try:
    state = state.apply_gradients(jnp.ones(5))
    print(state.params)
except jax.errors.UnexpectedTracerError as err:
    print(type(err).__name__)
