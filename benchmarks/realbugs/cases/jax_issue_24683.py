# source: https://github.com/jax-ml/jax/issues/24683
# expect: JAX201
# line: 12
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 12
# batch: 3
import jax
import jax.numpy as jnp


@jax.jit
def f1(x, a, b):
    return jax.lax.cond(a < x <= b,
                        lambda _: 666,
                        lambda _: 999,
                        None)


x, a, b = jnp.array(1.), 2., 3.
print(f1(x, a, b))
