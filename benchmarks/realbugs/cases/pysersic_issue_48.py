# source: https://github.com/pysersic/pysersic/issues/48
# expect: JAX502
# line: 41
# observed: jax 0.10.2 CPU: the three "independent" runs return identical posterior means, [1.0793571 2.647898 1.0780807] three times: sample() falls back on its default rkey=jax.random.PRNGKey(3) on every call
# batch: 8
import jax
import jax.numpy as jnp


def sersic_profile(r, amp, r_eff, n):
    b_n = 2.0 * n - 1.0 / 3.0
    return amp * jnp.exp(-b_n * ((r / r_eff) ** (1.0 / n) - 1.0))


class FitSingle:
    def __init__(self, data, rms, radii):
        self.data = data
        self.rms = rms
        self.radii = radii

    def log_prob(self, theta):
        amp, r_eff, n = jnp.exp(theta)
        model = sersic_profile(self.radii, amp, r_eff, n)
        return -0.5 * jnp.sum(((self.data - model) / self.rms) ** 2)

    def _run_chain(self, rkey, init, num_samples, step):
        def body(carry, key):
            theta, lp = carry
            k_prop, k_acc = jax.random.split(key)
            prop = theta + step * jax.random.normal(k_prop, theta.shape)
            lp_prop = self.log_prob(prop)
            accept = jnp.log(jax.random.uniform(k_acc)) < lp_prop - lp
            theta = jnp.where(accept, prop, theta)
            lp = jnp.where(accept, lp_prop, lp)
            return (theta, lp), theta

        keys = jax.random.split(rkey, num_samples)
        _, chain = jax.lax.scan(body, (init, self.log_prob(init)), keys)
        return chain

    def sample(self, num_samples=500, step=0.05, rkey=jax.random.PRNGKey(3)):
        init = jnp.log(jnp.array([1.0, 2.0, 1.5]))
        chain = self._run_chain(rkey, init, num_samples, step)
        return jnp.exp(chain).mean(axis=0)


radii = jnp.linspace(0.1, 10.0, 50)
data = sersic_profile(radii, 1.2, 2.5, 1.0) + 0.01 * jnp.sin(radii)
fitter = FitSingle(data=data, rms=0.05 * jnp.ones_like(data), radii=radii)
for run in range(3):
    post_mean = fitter.sample()
    print(run, post_mean)
