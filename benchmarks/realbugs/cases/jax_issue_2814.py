# source: https://github.com/jax-ml/jax/issues/2814
# expect: JAX405
# line: 18
# observed: jax 0.10.2 CPU: f compiled 19 times (JAX_LOG_COMPILES), once per slice length
# batch: 1
import jax
import jax.numpy as jnp


@jax.jit
def f(x):
    return x * x


data = jnp.arange(100.0)
for n in range(1, 20):
    # a new input length on every call: one compilation per length
    print(f(data[:n]).sum())
