# source: https://github.com/jax-ml/jax/issues/19089
# expect: JAX701
# line: 15
# observed: jax 0.10.2 CPU: grad(f)(1.) is nan with pre_filter=False and 0.5 with pre_filter=True: `delta ** 0.5` is taken on the whole array, including the 0 entry, and its infinite derivative times the masked-out zero cotangent gives NaN
# batch: 14
import jax.numpy as jnp
from jax import grad


def f(x, pre_filter=False):
    delta = jnp.array((0, 1)) * x
    if pre_filter:
        return jnp.sum(delta[delta > 0] ** 0.5)
    else:
        return jnp.sum((delta ** 0.5)[delta > 0])


print(grad(f)(1.))
print(grad(lambda x: f(x, pre_filter=True))(1.))
