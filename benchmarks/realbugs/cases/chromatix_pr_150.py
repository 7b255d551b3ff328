# source: https://github.com/chromatix-team/chromatix/pull/150
# expect: JAX207
# line: 25
# observed: jax 0.10.2 CPU: eager czt matches the 16-point FFT (max error 3e-5) and jax.jit(czt, static_argnums=1) runs, but jax.jit(czt)(x, 16, w, a) raises ConcretizationTypeError at line 25: the number of output points m is traced and sets jnp.arange's stop
# batch: 9
import jax
import jax.numpy as jnp
import numpy as np


def _next_fast_len(n):
    return 1 << (int(n) - 1).bit_length()


def czt(x, m, w, a):
    """Chirp z-transform of x at m points z_k = a * w**(-k), along the last axis.

    Bluestein's algorithm (Rabiner, Schafer & Rader 1969).
    """
    n = x.shape[-1]
    k = jnp.arange(n)
    wk2 = w ** (k**2 / 2.0)
    y = x * a ** (-k) * wk2

    kk = jnp.arange(-(n - 1), m)  # m >= n output points
    v = w ** (-(kk**2) / 2.0)
    nfft = _next_fast_len(n + v.shape[0] - 1)
    g = jnp.fft.ifft(jnp.fft.fft(y, nfft) * jnp.fft.fft(v, nfft))
    out = g[n - 1 : n - 1 + m]
    return out * w ** (jnp.arange(m) ** 2 / 2.0)


def zoom_spectrum(field, m, f_lo, f_hi):
    """Spectrum of `field` on m points between normalised frequencies f_lo and f_hi."""
    w = jnp.exp(-2j * jnp.pi * (f_hi - f_lo) / m)
    a = jnp.exp(2j * jnp.pi * f_lo)
    return czt(field, m, w, a)


x = np.random.default_rng(0).normal(size=16).astype(np.complex64)
w = jnp.exp(-2j * jnp.pi / 16)
a = jnp.array(1.0 + 0j)
print(float(jnp.max(jnp.abs(czt(x, 16, w, a) - jnp.fft.fft(x)))))
print(jax.jit(czt, static_argnums=1)(x, 16, w, a)[:3])
print(jax.jit(czt)(x, 16, w, a))
