# source: https://github.com/jax-ml/jax/issues/12952
# expect: JAX701
# line: 24
# observed: jax 0.10.2 CPU: elpd_loo is finite (-48.7), its gradient is NaN for both parameters: at the cutoff weight `tail_excess` is 0 and the unselected `jnp.log(0)` branch has an infinite derivative; with the double-where form `jnp.log(jnp.where(in_tail, tail_excess, 1.0))` the gradient is finite (-2.68, 2.17)
# batch: 12
import math

import jax
import jax.numpy as jnp


def psislw(log_weights, reff=1.0):
    """A JAX port of Pareto-smoothed importance sampling with static sizes: the tail is the
    cutoff_len largest weights, values outside it are masked out with NaN and nan-reductions."""
    n_samples = log_weights.shape[0]
    cutoff_len = int(math.ceil(min(0.2 * n_samples, 3 * math.sqrt(n_samples / reff))))
    log_weights = log_weights - jnp.max(log_weights)
    sorted_lw = jnp.sort(log_weights)
    cutoffmin = jnp.log(jnp.finfo(log_weights.dtype).tiny)
    xcutoff = jnp.maximum(sorted_lw[-cutoff_len - 1], cutoffmin)

    in_tail = log_weights > xcutoff
    tail_excess = jnp.exp(log_weights) - jnp.exp(xcutoff)
    log_excess = jnp.where(in_tail, jnp.log(tail_excess), jnp.nan)

    # Hill-type estimate of the Pareto shape on the tail, then the smoothed tail weights.
    k = jnp.nanmean(log_excess) - jnp.nanmin(log_excess)
    sigma = jnp.exp(jnp.nanmean(log_excess))
    ranks = jnp.argsort(jnp.argsort(log_weights))
    probs = (ranks - (n_samples - cutoff_len) + 0.5) / cutoff_len
    smoothed = jnp.log(jnp.exp(xcutoff) + sigma * jnp.expm1(-k * jnp.log1p(-jnp.clip(probs, 0.0, 0.999))) / k)
    log_weights = jnp.where(in_tail, jnp.minimum(smoothed, 0.0), log_weights)
    return log_weights - jax.scipy.special.logsumexp(log_weights), k


def log_lik_matrix(params, draws, x, y):
    """Pointwise log-likelihood of each observation under each posterior draw (S x N)."""
    slope, intercept = draws[:, :1] * params["scale"], draws[:, 1:] + params["shift"]
    mu = slope * x[None, :] + intercept
    return -0.5 * (y[None, :] - mu) ** 2 - 0.5 * jnp.log(2 * jnp.pi)


def elpd_loo(params, draws, x, y):
    log_lik = log_lik_matrix(params, draws, x, y)
    lw, _ = jax.vmap(psislw, in_axes=1, out_axes=(1, 0))(-log_lik)
    return jnp.sum(jax.scipy.special.logsumexp(lw + log_lik, axis=0))


key_draws, key_x, key_y = jax.random.split(jax.random.PRNGKey(0), 3)
draws = jax.random.normal(key_draws, (400, 2)) * 0.1 + jnp.array([1.5, -0.5])
x = jax.random.normal(key_x, (50,))
y = 1.5 * x - 0.5 + 0.3 * jax.random.normal(key_y, (50,))
params = {"scale": jnp.array(1.0), "shift": jnp.array(0.0)}
print("elpd_loo:", elpd_loo(params, draws, x, y))
print("grad:", jax.grad(elpd_loo)(params, draws, x, y))
