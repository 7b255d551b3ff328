# source: https://github.com/jax-ml/jax/issues/9675
# expect: JAX805
# line: 18
# observed: jax 0.10.2 CPU: ValueError at line 18
# batch: 2
import jax

buf = jax.numpy.array(1)


def f(x):
    return x + 1


f_jit = jax.jit(f, donate_argnums=(0,))

f_jit(buf)
f_jit(buf)
