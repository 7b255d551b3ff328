# source: https://github.com/jax-ml/jax/issues/1696
# expect: JAX803
# observed: jax 0.10.2 CPU: the potential evaluates along the slice; the compiled derivative raises TypeError "differentiating with respect to argnums=0 requires at least 1 positional arguments to be passed by the caller, but got only 0 positional arguments": `jax.grad(potential, argnums=0)` is called through `partial(fn, x=...)(y=y)`, with every argument by keyword
# batch: 13
"""Derivative of a field along x, evaluated on a slice of fixed x and compiled for reuse."""
from functools import partial

import jax
import jax.numpy as jnp


def potential(x, y, sigma=1.0, epsilon=1.0):
    r2 = x**2 + y**2 + 1e-3
    sr6 = (sigma**2 / r2) ** 3
    return 4 * epsilon * (sr6**2 - sr6)


dpotential_dx = jax.grad(potential, argnums=0)


class Slice:
    """Values of a field and of its x-derivative along the line x = x0."""

    def __init__(self, x0, ys):
        self.x0 = x0
        self.ys = ys

    def values(self, fn):
        line = partial(fn, x=self.x0)
        return jnp.stack([line(y=y) for y in self.ys])

    def compiled(self, fn):
        return jax.jit(jax.vmap(lambda y: partial(fn, x=self.x0)(y=y)))


s = Slice(x0=1.2, ys=jnp.linspace(-1.0, 1.0, 5))
print("potential:", s.values(potential))
try:
    print("force:", s.compiled(dpotential_dx)(s.ys))
except Exception as e:
    print(type(e).__name__ + ":", str(e).splitlines()[0])
