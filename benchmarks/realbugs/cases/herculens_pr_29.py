# source: https://github.com/Herculens/herculens/pull/29
# expect: JAX407
# line: 20
# observed: jax 0.10.2 CPU (2 shared cores, load 16.8): with nmax=100 the first call of the jitted loss (trace + compile) takes 11.8 s with the Python for loop of R_omega unrolled, against 1.85 s with the same series as lax.fori_loop (54.8 s against 1.37 s with nmax=300); later calls take milliseconds in both
# batch: 9
import time

import jax
import jax.numpy as jnp


def R_omega(z, t, q, nmax):
    """Angular part of the deflection of an elliptical power law (Tessore & Metcalf 2015).

    z: complex ellipse coordinate, t: slope - 1, q: axis ratio, nmax: number of terms.
    """
    f = (1.0 - q) / (1.0 + q)
    omega_i = z
    partial_sum = omega_i
    for i in range(1, nmax):
        factor = (2.0 * i - (2.0 - t)) / (2.0 * i + (2.0 - t))
        omega_i = -f * factor * (z / jnp.conj(z)) * omega_i
        partial_sum = partial_sum + omega_i
    return partial_sum


def R_omega_fori(z, t, q, nmax):
    f = (1.0 - q) / (1.0 + q)

    def body(i, carry):
        omega_i, partial_sum = carry
        factor = (2.0 * i - (2.0 - t)) / (2.0 * i + (2.0 - t))
        omega_i = -f * factor * (z / jnp.conj(z)) * omega_i
        return omega_i, partial_sum + omega_i

    return jax.lax.fori_loop(1, nmax, body, (z, z))[1]


class EPL:
    def __init__(self, nmax=100, series=R_omega):
        self.nmax = nmax
        self.series = series

    def derivatives(self, x, y, theta_E, gamma, q):
        t = gamma - 1.0
        z = jnp.sqrt(q**2 * x**2 + y**2) + 0j
        phi = jnp.arctan2(y, q * x)
        R = jnp.abs(z)
        b = theta_E * jnp.sqrt(q)
        alph = 2 * b / (1 + q) * (b / R) ** (t - 1) * self.series(jnp.exp(1j * phi), t, q, self.nmax)
        return jnp.real(alph), jnp.imag(alph)


def make_loss(lens):
    def loss(params, x, y, beta_x, beta_y):
        ax, ay = lens.derivatives(x, y, *params)
        return jnp.sum((x - ax - beta_x) ** 2 + (y - ay - beta_y) ** 2)

    return jax.jit(loss)


x, y = jnp.meshgrid(jnp.linspace(-2, 2, 64), jnp.linspace(-2, 2, 64))
params = (1.2, 2.1, 0.8)
for name, series in [("python for", R_omega), ("fori_loop", R_omega_fori)]:
    loss = make_loss(EPL(series=series))
    t0 = time.perf_counter()
    loss(params, x, y, 0.1, 0.0).block_until_ready()
    t1 = time.perf_counter()
    loss(params, x, y, 0.1, 0.0).block_until_ready()
    print(f"{name}: first call {t1 - t0:.2f} s, second call {time.perf_counter() - t1:.4f} s")
