# source: https://github.com/nanograv/discovery/pull/91
# expect: JAX701
# line: 32
# observed: jax 0.10.2 CPU (x64, as the package sets it): loglike 9892.05 (finite), every entry of jax.grad(loglike) is nan: for TOAs before t0 the untaken branch exp(-dt / 10**log10_tau) overflows to inf (dt down to -4117 days, tau = 10**0.5 days), and the where sends 0 * inf = nan into the gradient
# batch: 13
import functools

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp
import numpy as np

DAY = 86400.0


class Pulsar:
    """Times of arrival (s) and observing frequencies (MHz) of one pulsar."""

    def __init__(self, name, toas, freqs, residuals, toaerrs):
        self.name, self.toas, self.freqs = name, toas, freqs
        self.residuals, self.toaerrs = residuals, toaerrs


def make_chromaticdelay(psr, idx=None):
    """From enterprise_extensions: pre-calculate chromatic exponential-dip delay."""
    toadays, invnormfreqs = jnp.array(psr.toas / DAY), jnp.array(1400.0 / psr.freqs)

    def decay(t0, log10_Amp, log10_tau, idx):
        dt = toadays - t0
        return jnp.where(dt > 0.0, -1.0 * (10**log10_Amp) * jnp.exp(-dt / (10**log10_tau)) * invnormfreqs**idx, 0.0)

    if idx is not None:
        decay = functools.partial(decay, idx=idx)

    return decay


def make_loglike(psr, delays):
    y, sigma2 = jnp.array(psr.residuals), jnp.array(psr.toaerrs**2)

    def loglike(params):
        model = sum(delay(**{k.split(psr.name + "_dmexp_1_")[1]: v for k, v in params.items()}) for delay in delays)
        r = y - model
        return -0.5 * jnp.sum(r**2 / sigma2 + jnp.log(2 * jnp.pi * sigma2))

    return loglike


rng = np.random.default_rng(0)
toas = np.sort(rng.uniform(53392.0, 59600.0, 800)) * DAY
freqs = rng.choice([820.0, 1400.0, 2300.0], 800)
psr = Pulsar("J1713+0747", toas, freqs, 1e-6 * rng.normal(size=800), np.full(800, 1e-6))
loglike = make_loglike(psr, [make_chromaticdelay(psr, idx=None)])
params = {"J1713+0747_dmexp_1_idx": 1.5, "J1713+0747_dmexp_1_log10_Amp": -6.0,
          "J1713+0747_dmexp_1_log10_tau": 0.5, "J1713+0747_dmexp_1_t0": 57509.0}
print("loglike:", loglike(params))
print("grad:", jax.grad(loglike)(params))
