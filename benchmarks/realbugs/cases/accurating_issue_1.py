# source: https://github.com/lukaszlew/accurating/issues/1
# expect: JAX902
# line: 7
# observed: jax 0.10.2 CPU: ModuleNotFoundError at line 7
# batch: 4
import jax
import jax.config
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)


def win_probability(elo_a, elo_b):
    return jax.nn.sigmoid((elo_a - elo_b) * jnp.log(10.0) / 400.0)


print(win_probability(jnp.array(1600.0), jnp.array(1500.0)))
