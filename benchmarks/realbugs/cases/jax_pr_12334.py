# source: https://github.com/jax-ml/jax/pull/12334
# expect: JAX203
# line: 10
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 10 (squeeze's axis is a jnp array, traced under jit)
# batch: 7
import jax


def f(x):
    return jax.numpy.squeeze(x, jax.numpy.array(1))


jax.jit(f)(jax.numpy.arange(5))
