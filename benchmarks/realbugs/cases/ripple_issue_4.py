# source: https://github.com/tedwards2412/ripple/issues/4
# expect: JAX405
# line: 27
# observed: jax 0.10.2 CPU: gen_IMRPhenomD_polar compiled 6 times in one likelihood call, once per segment length (JAX_LOG_COMPILES)
# batch: 4
import jax
import jax.numpy as jnp


@jax.jit
def gen_IMRPhenomD_polar(f, theta):
    """Toy frequency-domain waveform: amplitude and phase on the frequency grid f."""
    mc, eta, dist = theta[0], theta[1], theta[2]
    amp = mc ** (5 / 6) * f ** (-7 / 6) / dist
    phase = 2 * jnp.pi * f * 0.01 - jnp.pi / 4 + 3 / (128 * eta) * (jnp.pi * mc * f) ** (-5 / 3)
    hp = amp * jnp.exp(-1j * phase)
    return hp, -1j * hp


def heterodyne_bins(f_min, f_max, n_bins):
    return jnp.linspace(f_min, f_max, n_bins)


def log_likelihood(theta, data_by_bins):
    total = 0.0
    for f_grid, data in data_by_bins:
        hp, _ = gen_IMRPhenomD_polar(f_grid, theta)
        total += jnp.sum(jnp.abs(data - hp) ** 2)
    return total


# the relative-binning grid has a different length for every segment
segments = [(20.0 + 10 * k, 40.0 + 10 * k, 16 + 8 * k) for k in range(6)]
data_by_bins = [(heterodyne_bins(*seg), jnp.zeros(seg[2], jnp.complex64)) for seg in segments]
print(log_likelihood(jnp.array([20.0, 0.24, 400.0]), data_by_bins))
