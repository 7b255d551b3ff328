# source: https://github.com/lindermanlab/ssm-jax/issues/21
# expect: JAX907
# line: 8
# observed: jax 0.10.2 CPU: the module fails at import: ImportError: cannot import name 'optimizers' from 'jax.experimental' (line 8; the module was removed, it lives on as jax.example_libraries.optimizers, and the issue proposes optax)
# batch: 10
import jax
import jax.numpy as jnp
from jax.experimental import optimizers


def poisson_log_likelihood(emission_params, data, states):
    log_rates = states @ emission_params["weights"].T + emission_params["bias"]
    return jnp.sum(data * log_rates - jnp.exp(log_rates))


def laplace_approximation(emission_params, data, init_states, num_iters=50, step_size=1e-2):
    """Posterior mode of the latent states by gradient ascent (the Laplace E-step)."""
    def objective(states):
        prior = -0.5 * jnp.sum((states[1:] - states[:-1]) ** 2) - 0.5 * jnp.sum(states[0] ** 2)
        return prior + poisson_log_likelihood(emission_params, data, states)

    def body(_, states):
        return states + step_size * jax.grad(objective)(states)

    return jax.lax.fori_loop(0, num_iters, body, init_states)


def _fit_emissions_with_adam(emission_params, data, posterior_mean, num_iters=100, learning_rate=1e-2):
    """M-step for the emissions: maximise the expected log likelihood with Adam."""
    opt_init, opt_update, get_params = optimizers.adam(learning_rate)

    def loss(params):
        return -poisson_log_likelihood(params, data, posterior_mean) / data.size

    @jax.jit
    def step(i, opt_state):
        value, grads = jax.value_and_grad(loss)(get_params(opt_state))
        return opt_update(i, grads, opt_state), value

    opt_state = opt_init(emission_params)
    for i in range(num_iters):
        opt_state, value = step(i, opt_state)
    return get_params(opt_state), value


def laplace_em(emission_params, data, latent_dim, num_em_iters=5):
    states = jnp.zeros((data.shape[0], latent_dim))
    for itr in range(num_em_iters):
        states = laplace_approximation(emission_params, data, states)
        emission_params, loss = _fit_emissions_with_adam(emission_params, data, states)
        print(f"EM iteration {itr}: emissions loss {float(loss):.4f}")
    return emission_params, states


key_w, key_y = jax.random.split(jax.random.PRNGKey(0))
params = {"weights": 0.1 * jax.random.normal(key_w, (10, 2)), "bias": jnp.zeros(10)}
data = jax.random.poisson(key_y, 2.0, (100, 10)).astype(jnp.float32)
laplace_em(params, data, latent_dim=2)
