# source: https://github.com/google-deepmind/optax/pull/1786
# expect: JAX701
# line: 17
# observed: jax 0.10.2 CPU: the loss is finite (0.2221703) but jax.grad with respect to the targets is [nan 1.5788913 0.98435634 nan] (nan at both zero targets, where the untaken jnp.log(targets) is -inf), and the gradient of distill_loss with respect to the smoothing is nan
# batch: 8
import jax
import jax.numpy as jnp


def kl_divergence(log_predictions, targets):
    """Computes the Kullback-Leibler divergence (relative entropy) loss.

    Args:
      log_predictions: log-probabilities of the predicted distribution.
      targets: probabilities of the target distribution (zeros allowed).
    """
    loss = targets * (jnp.where(targets == 0, 0, jnp.log(targets)) - log_predictions)
    return jnp.sum(loss, axis=-1)


def smoothed_targets(raw_targets, smoothing):
    return raw_targets * (1.0 - smoothing)


def distill_loss(smoothing, logits, raw_targets):
    log_ps = jax.nn.log_softmax(logits)
    return kl_divergence(log_ps, smoothed_targets(raw_targets, smoothing))


log_ps = jax.nn.log_softmax(jnp.array([0.5, 1.0, 2.0, -1.0]))
qs = jnp.array([0.0, 0.4, 0.6, 0.0])
print(kl_divergence(log_ps, qs))
print(jax.grad(kl_divergence, argnums=1)(log_ps, qs))
print(jax.grad(distill_loss)(0.1, jnp.array([0.5, 1.0, 2.0, -1.0]), qs))
