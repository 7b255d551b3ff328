# source: https://github.com/jax-ml/jax/issues/1105
# expect: JAX802
# line: 14
# observed: jax 0.10.2 CPU: TypeError at line 16
# batch: 2
import jax.numpy as jnp
from jax import grad


def f(x):
    return 2 * x


g = grad(f, has_aux=True)
x = jnp.ones([])
print(g(x))
