# source: https://github.com/f0uriest/interpax/pull/99
# expect: JAX402
# line: 18
# observed: jax 0.10.2 CPU: JAX_LOG_COMPILES shows 'Compiling jit(fun)' 10 times for the 10 Interpolator1D constructions: a fresh local fun is jitted on every approx_df call
# batch: 7
import jax
import jax.numpy as jnp
from jax import jit


def approx_df(x, f, method="cubic", axis=-1, **kwargs):
    """Approximate the first derivative of f(x) for spline coefficients."""

    # close over static args to deal with non-jittable kwargs
    def fun(x, f):
        return _approx_df(x, f, method, axis, **kwargs)

    return jit(fun)(x, f)


def _approx_df(x, f, method, axis, c=0):
    if method == "cubic":
        dx = jnp.diff(x)
        df = jnp.diff(f, axis=axis)
        dxi = jnp.where(dx == 0, 0, 1 / dx)
        fx = df * dxi
        return jnp.concatenate([fx[:1], 0.5 * (fx[1:] + fx[:-1]), fx[-1:]])
    if method == "cardinal":
        dx = x[2:] - x[:-2]
        df = f[2:] - f[:-2]
        fx = (1 - c) * df / dx
        return jnp.concatenate([fx[:1], fx, fx[-1:]])
    raise ValueError(f"unknown method {method}")


class Interpolator1D:
    def __init__(self, x, f, method="cubic", extrap=False):
        self.x = x
        self.f = f
        self.method = method
        self.extrap = extrap
        self.derivs = {"fx": approx_df(x, f, method, axis=0)}

    def __call__(self, xq):
        i = jnp.clip(jnp.searchsorted(self.x, xq, side="right"), 1, len(self.x) - 1)
        x0, x1 = self.x[i - 1], self.x[i]
        t = (xq - x0) / (x1 - x0)
        f0, f1 = self.f[i - 1], self.f[i]
        d0, d1 = self.derivs["fx"][i - 1], self.derivs["fx"][i]
        h = x1 - x0
        return (
            (2 * t**3 - 3 * t**2 + 1) * f0
            + (t**3 - 2 * t**2 + t) * h * d0
            + (-2 * t**3 + 3 * t**2) * f1
            + (t**3 - t**2) * h * d1
        )


x = jnp.linspace(0, 2 * jnp.pi, 64)
xq = jnp.linspace(0, 2 * jnp.pi, 200)
for k in range(1, 11):
    interp = Interpolator1D(x, jnp.sin(k * x))
    print(k, float(jnp.max(jnp.abs(interp(xq) - jnp.sin(k * xq)))))
