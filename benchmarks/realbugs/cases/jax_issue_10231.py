# source: https://github.com/jax-ml/jax/issues/10231
# expect: JAX206
# line: 17
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 17
# batch: 4
import jax
import jax.numpy as jnp
import numpy as np


def stuff_projection_logdensity(params, age_idx, velo):
    """Log density of a pitcher-aging model; traced by the sampler (jit + grad)."""
    age_effect = params["age_effect"]
    mu = params["intercept"] + age_effect[age_idx]
    loglik = -0.5 * jnp.sum((velo - mu) ** 2)
    # the ages to predict at: a data-dependent number of them
    ages_pred = jnp.unique(age_idx)
    smooth_prior = -0.5 * jnp.sum(jnp.diff(age_effect[ages_pred]) ** 2)
    return loglik + smooth_prior


potential = jax.jit(jax.value_and_grad(stuff_projection_logdensity))
params = {"intercept": jnp.array(92.0), "age_effect": jnp.zeros(30)}
age_idx = jnp.asarray(np.random.randint(0, 30, size=4897))
print(potential(params, age_idx, jnp.full(4897, 93.0))[0])
