# source: https://github.com/jax-ml/jax/issues/14245
# expect: JAX201
# line: 15
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 15
# batch: 4
import jax
import jax.numpy as jnp
from jax import grad, vmap


def forward(x, params):
    """A nonlinear transform with Python control flow on the input value."""
    a, b, threshold = params
    y = a * x + b
    if y > threshold:
        y = jnp.log1p(y)
    else:
        y = y ** 2
    return y


params = (2.0, 0.5, 1.0)
with jax.disable_jit():
    batched_fun = vmap(grad(forward), in_axes=(0, None))
    print(batched_fun(jnp.linspace(-1.0, 1.0, 10000), params)[:3])
