"""Key reuse cases of the draws tests (test_confirm_draws) where one call passes one key to two
parameters (JAX501): a fork of their own."""
import jax
import jax.numpy as jnp


class Net:
    def init(self, params_rng, dropout_rng, deterministic=False):
        w = jax.random.normal(params_rng, (3,))
        b = jax.random.normal(params_rng, (3,))  # the net's own reuse, through one parameter
        if deterministic:
            return w + b
        keep = jax.random.bernoulli(dropout_rng, 0.5, (3,))
        return jnp.where(keep, w, 0.0) + b


def create(rng):
    return Net().init(rng, rng)  # REAL two parameters: each draws from the one key


def create_eval(rng):
    return Net().init(rng, rng, deterministic=True)  # DECOY two parameters: one draws, twice


print(create(jax.random.key(15)), create_eval(jax.random.key(16)))
