# source: https://github.com/blackjax-devs/blackjax/issues/1029
# expect: JAX202
# line: 26
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 26
# batch: 2
import jax
import jax.numpy as jnp


def _apply_length_floor(trajectory_length, lambda_max, engaged, length_floor, max_steps, step_size):
    floor = length_floor / jnp.sqrt(lambda_max)
    length = jnp.where(engaged, jnp.maximum(trajectory_length, floor), trajectory_length)
    capped = jnp.minimum(length, max_steps * step_size)
    return capped, capped < length


def chees_run(log_step_size_moving_average, trajectory_length_ma, lambda_max, estimate_mass_matrix=True):
    step_size_ma = jnp.exp(log_step_size_moving_average)
    if estimate_mass_matrix:
        consumed_trajectory_length_ma, floor_clipped_by_cap = _apply_length_floor(
            trajectory_length_ma,
            lambda_max,
            True,
            0.5,
            1000,
            float(step_size_ma),
        )
        return consumed_trajectory_length_ma
    return trajectory_length_ma


run = jax.jit(chees_run)
print(run(jnp.log(0.1), 1.0, 4.0))
