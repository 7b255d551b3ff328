# source: https://github.com/climate-analytics-lab/jax-gcm/issues/558
# expect: JAX701
# line: 15
# observed: jax 0.10.2 CPU: the rollout's mean temperature is 258.99 but d(meanT)/d(crt) is nan; with a safe denominator in both where's the gradient is -2.886 (with only the ssa one fixed it stays nan): in the clear, aerosol-free top layers total_tau_with_aerosol (and total_scattering) is 0, the untaken branch divides 0 by 0, and where's VJP multiplies its infinite derivative by 0
# batch: 10
import jax
import jax.numpy as jnp


def combine_optical_properties(tau_gas, tau_cloud, ssa_cloud, g_cloud, tau_aerosol, ssa_aerosol, g_aerosol):
    total_tau_with_aerosol = tau_gas + tau_cloud + tau_aerosol
    total_scattering = tau_cloud * ssa_cloud + tau_aerosol * ssa_aerosol
    combined_ssa = jnp.where(
        total_tau_with_aerosol > 0,
        total_scattering / total_tau_with_aerosol,
        0.0,
    )
    combined_g = jnp.where(
        total_scattering > 0,
        (tau_cloud * ssa_cloud * g_cloud + tau_aerosol * ssa_aerosol * g_aerosol) / total_scattering,
        0.0,
    )
    return total_tau_with_aerosol, combined_ssa, combined_g


class GreyTwoStreamRadiation:
    def __init__(self, n_substeps=3, solar=340.0):
        self.n_substeps, self.solar = n_substeps, solar

    def _compute(self, temperature, cloud_fraction, tau_gas):
        tau_cloud = 4.0 * cloud_fraction
        tau, ssa, g = combine_optical_properties(tau_gas, tau_cloud, 0.999, 0.85, jnp.zeros_like(tau_gas), 0.9, 0.7)
        absorbed = 1.0 - jnp.exp(-tau * (1.0 - ssa * g))
        transmitted = jnp.cumprod(1.0 - absorbed)
        return self.solar * absorbed * jnp.concatenate([jnp.ones(1), transmitted[:-1]]) - 5e-3 * temperature

    def __call__(self, step, temperature, cloud_fraction, tau_gas, previous_heating):
        return jax.lax.cond(
            step % self.n_substeps == 0,
            lambda: self._compute(temperature, cloud_fraction, tau_gas),
            lambda: previous_heating,
        )


def cloud_fraction_from_rh(relative_humidity, crt):
    return jnp.clip((relative_humidity - crt) / (1.0 - crt), 0.0, 1.0)


def rollout(crt, temperature, relative_humidity, tau_gas, radiation, n_steps=12, dt=0.01):
    def step(carry, i):
        temperature, heating = carry
        cloud = cloud_fraction_from_rh(relative_humidity, crt)
        heating = radiation(i, temperature, cloud, tau_gas, heating)
        return (temperature + dt * heating, heating), None

    (temperature, _), _ = jax.lax.scan(step, (temperature, jnp.zeros_like(temperature)), jnp.arange(n_steps))
    return temperature


levels = 8
temperature0 = jnp.linspace(220.0, 290.0, levels)
relative_humidity = jnp.array([0.05, 0.1, 0.3, 0.5, 0.85, 0.95, 0.7, 0.6])
tau_gas = jnp.array([0.0, 0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4])  # dry, clear, aerosol-free top layers
radiation = GreyTwoStreamRadiation()


def mean_temperature(crt):
    return jnp.mean(rollout(crt, temperature0, relative_humidity, tau_gas, radiation))


print("meanT:", mean_temperature(0.8))
print("d(meanT)/d(crt):", jax.grad(mean_temperature)(0.8))
