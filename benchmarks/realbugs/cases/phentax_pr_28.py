# source: https://github.com/asantini29/phentax/pull/28
# expect: JAX201, JAX202
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 19 (the assert); without it, ConcretizationTypeError at line 21 (int(jnp.ceil(...)))
# batch: 2
import jax
import jax.numpy as jnp


class IMRPhenomTHM:
    def __init__(self, T=4.0, delta_t=1.0 / 64, coarse_grain=False):
        self.T = T
        self.delta_t = delta_t
        self.coarse_grain = coarse_grain

    def estimate_adaptive_steps_from_T(self, T):
        return int(jnp.log2(T / self.delta_t)) + 1

    def initial_processing(self, chi1, chi2, T):
        assert jnp.all(jnp.abs(chi1) <= 1.0) and jnp.all(jnp.abs(chi2) <= 1.0)
        # T is a traced argument of the jitted waveform call
        n_samples = int(jnp.ceil(T / self.delta_t))
        self.max_adaptive_steps = self.estimate_adaptive_steps_from_T(T)
        return n_samples

    def compute_polarizations(self, chi1, chi2, T):
        n = self.initial_processing(chi1, chi2, T)
        return jnp.zeros(16) + n


model = IMRPhenomTHM()
waveform = jax.jit(model.compute_polarizations)
print(waveform(0.1, 0.2, 4.0))
