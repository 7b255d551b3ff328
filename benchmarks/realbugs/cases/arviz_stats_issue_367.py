# source: https://github.com/arviz-devs/arviz-stats/issues/367
# expect: JAX301
# line: 74
# observed: jax 0.10.2 CPU: the NumPy log-likelihood gives elpd -3.99; the same routine on a jnp log-likelihood raises TypeError "JAX arrays are immutable and do not support in-place item assignment" at line 74: `ary` is the JAX array handed down from `loo` through `_psislw` (`-ary`, `ary - np.max(ary)` keep it a JAX array), and `_ps_tail` writes the smoothed tail into it by index
# batch: 13
import jax.numpy as jnp
import numpy as np
from scipy.special import logsumexp


class BaseArray:
    """Array-level diagnostics written against the NumPy API, fed whatever array the data holds."""

    @staticmethod
    def _get_ps_tails(n_draws, r_eff, tail):
        if n_draws > 255:
            n_draws_tail = np.ceil(3 * (n_draws / r_eff) ** 0.5).astype(int)
        else:
            n_draws_tail = int(n_draws / 5)
        if tail == "both":
            n_draws_tail = int(n_draws_tail / 2)
        return n_draws_tail

    @staticmethod
    def _gpdfit(ary):
        """Empirical Bayes estimate of the generalized Pareto (k, sigma) (Zhang & Stephens)."""
        prior_bs, prior_k = 3, 10
        n = len(ary)
        m_est = 30 + int(n**0.5)
        b_ary = 1 - np.sqrt(m_est / (np.arange(1, m_est + 1, dtype=float) - 0.5))
        b_ary /= prior_bs * ary[int(n / 4 + 0.5) - 1]
        b_ary += 1 / ary[-1]
        k_ary = np.log1p(-b_ary[:, None] * ary).mean(axis=1)
        len_scale = n * (np.log(-(b_ary / k_ary)) - k_ary - 1)
        weights = 1 / np.exp(len_scale - len_scale[:, None]).sum(axis=1)
        b_post = np.sum(b_ary * weights) / weights.sum()
        k_post = np.log1p(-b_post * ary).mean()
        sigma = -k_post / b_post
        k_post = (n * k_post + prior_k * 0.5) / (n + prior_k)
        return k_post, sigma

    @staticmethod
    def _gpinv(probs, kappa, sigma, mu):
        return mu + sigma * np.expm1(-kappa * np.log1p(-probs)) / kappa

    def _ps_tail(self, ary, n_draws, n_draws_tail, smooth_draws=False, tail="both", log_weights=False):
        if log_weights:
            ary = ary - np.max(ary)
        tail_ids = np.arange(n_draws - n_draws_tail, n_draws, dtype=int)
        if tail == "left":
            ary = -ary
        ordered = np.argsort(ary)
        draws_tail = ary[ordered[tail_ids]]
        cutoff = ary[ordered[tail_ids[0] - 1]]
        max_tail = np.max(draws_tail)
        min_tail = np.min(draws_tail)
        if n_draws_tail >= 5:
            if abs(max_tail - min_tail) < np.finfo(float).tiny:
                raise ValueError("All tail values are the same")
            if log_weights:
                draws_tail = np.exp(draws_tail)
                cutoff = np.exp(cutoff)
            khat, sigma = self._gpdfit(np.sort(np.asarray(draws_tail - cutoff)))
            smoothed = None
            if np.isfinite(khat) and smooth_draws:
                p = np.arange(0.5, n_draws_tail) / n_draws_tail
                smoothed = self._gpinv(p, khat, sigma, cutoff)
                if log_weights:
                    smoothed = np.log(smoothed)
        else:
            raise ValueError("n_draws_tail must be at least 5")
        if smoothed is not None:
            smoothed = np.minimum(smoothed, max_tail)
            ary[ordered[tail_ids]] = smoothed
        if tail == "left":
            ary = -ary
        if log_weights:
            ary -= logsumexp(ary)
        return ary, khat

    def _psislw(self, ary, r_eff):
        ary_shape = ary.shape
        ary = ary.flatten()
        n_draws = len(ary)
        n_draws_tail = self._get_ps_tails(n_draws, r_eff, tail="right")
        ary, khat = self._ps_tail(-ary, n_draws, n_draws_tail, smooth_draws=True, tail="right", log_weights=True)
        return ary.reshape(ary_shape), khat


def loo(log_likelihood, r_eff=1.0):
    """elpd_loo from a (chain, draw, obs) log-likelihood array."""
    base = BaseArray()
    elpd, khats = [], []
    for i in range(log_likelihood.shape[-1]):
        lw, khat = base._psislw(log_likelihood[..., i], r_eff)
        elpd.append(logsumexp(lw + np.asarray(log_likelihood[..., i])))
        khats.append(khat)
    return np.sum(elpd), np.array(khats)


rng = np.random.default_rng(0)
nchains, ndraws, nobs = 4, 500, 8
print("numpy log-likelihood:", loo(rng.normal(size=(nchains, ndraws, nobs)))[0])
log_lik = jnp.array(rng.normal(size=(nchains, ndraws, nobs)))  # as the numpyro/JAX backend stores it
try:
    loo(log_lik)
except TypeError as e:
    print("TypeError:", str(e).splitlines()[0][:80])
