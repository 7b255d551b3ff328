# source: https://github.com/lollcat/fab-jax/pull/15
# expect: JAX502,JAX501
# line: 50
# observed: jax 0.10.2 CPU: every intermediate distribution's Metropolis state starts from the same key, so the proposal noise drawn at one step of the scan is identical for all distributions (printed: True)
# batch: 12
from typing import NamedTuple

import jax
import jax.numpy as jnp


class MetropolisState(NamedTuple):
    key: jax.Array
    step_size: jax.Array


class TransitionOperator(NamedTuple):
    init: callable
    step: callable


def build_metropolis(dim, init_step_size=1.0):
    def init(key):
        return MetropolisState(key=key, step_size=jnp.array(init_step_size))

    def step(x, state, log_target):
        key, key_prop, key_acc = jax.random.split(state.key, 3)
        noise = jax.random.normal(key_prop, x.shape)
        proposal = x + state.step_size * noise
        log_ratio = log_target(proposal) - log_target(x)
        accept = jnp.log(jax.random.uniform(key_acc, x.shape[:1])) < log_ratio
        x_new = jnp.where(accept[:, None], proposal, x)
        return x_new, MetropolisState(key=key, step_size=state.step_size), noise

    return TransitionOperator(init=init, step=step)


class SMCState(NamedTuple):
    transition_operator_state: MetropolisState
    key: jax.Array


def build_smc(transition_operator, n_intermediate_distributions, log_q_fn, log_p_fn):
    betas = jnp.linspace(0.0, 1.0, n_intermediate_distributions + 2)

    def init(key):
        """Initialise the state of the SMC sampler."""
        key1, key2 = jax.random.split(key)
        trans_op_state = transition_operator.init(key1)
        trans_op_state = jax.tree_util.tree_map(
            lambda x: jnp.repeat(x[None, ...], n_intermediate_distributions, axis=0), trans_op_state)
        return SMCState(trans_op_state, key2)

    def step(x0, smc_state):
        def body_fn(x, xs):
            trans_op_state, i = xs
            beta = betas[i]
            log_target = lambda x: (1 - beta) * jax.vmap(log_q_fn)(x) + beta * jax.vmap(log_p_fn)(x)
            x, trans_op_state, noise = transition_operator.step(x, trans_op_state, log_target)
            return x, (trans_op_state, noise)

        xs = (smc_state.transition_operator_state, jnp.arange(n_intermediate_distributions) + 1)
        x, (trans_op_states, noises) = jax.lax.scan(body_fn, x0, xs)
        return x, SMCState(trans_op_states, smc_state.key), noises

    return init, step


log_q_fn = lambda x: -0.5 * jnp.sum(x ** 2)
log_p_fn = lambda x: -0.5 * jnp.sum((x - 2.0) ** 2)
smc_init, smc_step = build_smc(build_metropolis(dim=2), 4, log_q_fn, log_p_fn)
smc_state = smc_init(jax.random.PRNGKey(0))
x0 = jax.random.normal(jax.random.PRNGKey(1), (16, 2))
x, smc_state, noises = jax.jit(smc_step)(x0, smc_state)
print("same proposal noise at every intermediate distribution:", bool(jnp.all(noises == noises[0])))
