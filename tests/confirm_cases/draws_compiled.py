"""Key reuse inside the program's own jitted calls (test_confirm_draws): the draws' numbers
are followed through the compiled computation to the outputs that depend on them."""
import jax
import jax.numpy as jnp


@jax.jit
def add_noise(key, x):
    return x + 0.1 * jax.random.normal(key, x.shape)


@jax.jit
def step_and_noise(key, x):
    noise = jax.random.normal(key, x.shape)
    return x + 1.0, noise  # the noise is returned on its own; x never sees it


def noisy_walk(key, x):
    for step in range(3):
        x = add_noise(key, x)  # REAL compiled: one key each step, its noise added and printed
        print(step, x)
    return x


def counted_walk(key, y):
    for step in range(3):
        y, noise = step_and_noise(key, y)  # DECOY compiled: one key each step, its noise never in y
        print(step, y)
    return y


noisy_walk(jax.random.key(0), jnp.zeros(3))
counted_walk(jax.random.key(1), jnp.zeros(3))
