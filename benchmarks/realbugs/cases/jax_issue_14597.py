# source: https://github.com/jax-ml/jax/issues/14597
# expect: JAX501
# line: 24
# observed: jax 0.10.2 CPU: the normal and the gamma draw of student_t both consume key_n (key_g is never used); with jax_debug_key_reuse on, the jitted sampler raises KeyReuseError 'In jit, argument 0 is already consumed.' (over 200000 draws with df=3 the reuse left no visible linear correlation between n and g, -0.0009, nor a wrong variance, 2.95 vs 3)
# batch: 9
from functools import partial

import jax
import jax.numpy as jnp
from jax import lax


def _split(key):
    return jax.random.split(key)


@partial(jax.jit, static_argnums=(2, 3))
def _t(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split(key)
    n = jax.random.normal(key_n, shape, dtype)
    two = jnp.asarray(2, dtype)
    half_df = lax.div(df, two)
    g = jax.random.gamma(key_n, half_df, shape, dtype)
    return n * jnp.sqrt(half_df / g), n, g


def t(key, df, shape=(), dtype=jnp.float32):
    """Sample Student's t random values with given shape and float dtype."""
    samples, _, _ = _t(key, df, shape, dtype)
    return samples


key = jax.random.PRNGKey(0)
print(t(key, 3.0, (3,)))

jax.config.update("jax_debug_key_reuse", True)
try:
    _t(jax.random.key(1), 3.0, (3,), jnp.float32)
except jax.errors.KeyReuseError as err:
    print(type(err).__name__, str(err).splitlines()[0])
