# source: https://github.com/google/dopamine/issues/222
# expect: JAX501
# line: 70
# observed: jax 0.10.2 CPU: every state of the replay batch gets the same noisy-layer noise (printed: the per-state noise matrices are all equal, True): `get_logits` / `get_q_values` map the states with `in_axes=(None, 0, None)`, so the one `rng` of `train` is drawn from by every mapped call; the reporter: "their is no axis mapped over the key ... it will lead to the same noisy parameters for each state"
# batch: 15
# (dopamine/jax/agents/full_rainbow/full_rainbow_agent.py and networks.py as the report describes them, the flax NoisyNetwork written as a function of its params and key; no maintainer reply in the thread)
import functools

import jax
import jax.numpy as jnp

NUM_ACTIONS = 4
NUM_ATOMS = 5
HIDDEN = 8


def init_noisy(rng, features_in, features_out):
    mu_w, mu_b = jax.random.split(rng)
    return {
        "mu_w": jax.random.uniform(mu_w, (features_in, features_out), minval=-0.1, maxval=0.1),
        "mu_b": jax.random.uniform(mu_b, (features_out,), minval=-0.1, maxval=0.1),
        "sigma_w": jnp.full((features_in, features_out), 0.5 / jnp.sqrt(features_in)),
        "sigma_b": jnp.full((features_out,), 0.5 / jnp.sqrt(features_in)),
    }


def noisy_network(params, x, rng_key, eval_mode=False):
    """Factorised Gaussian noise (NoisyNetwork in dopamine/jax/networks.py)."""
    def f(x):
        return jnp.multiply(jnp.sign(x), jnp.power(jnp.abs(x), 0.5))

    p_key, q_key = jax.random.split(rng_key)
    p = jax.random.normal(p_key, (x.shape[0], 1))
    q = jax.random.normal(q_key, (1, params["mu_b"].shape[0]))
    f_p, f_q = f(p), f(q)
    w_epsilon = f_p * f_q
    b_epsilon = jnp.squeeze(f_q)
    w = params["mu_w"] + params["sigma_w"] * w_epsilon
    b = params["mu_b"] + params["sigma_b"] * b_epsilon
    return jnp.matmul(x, w) + b, w_epsilon


def full_rainbow_apply(params, x, key, support):
    x = jax.nn.relu(x @ params["torso"])
    logits, w_epsilon = noisy_network(params["head"], x, key)
    logits = logits.reshape((NUM_ACTIONS, NUM_ATOMS))
    probabilities = jax.nn.softmax(logits)
    q_values = jnp.sum(support * probabilities, axis=1)
    return logits, q_values, w_epsilon


@functools.partial(jax.vmap, in_axes=(None, 0, None))
def get_logits(model, states, rng):
    return model(states, key=rng)[0]


@functools.partial(jax.vmap, in_axes=(None, 0, None))
def get_noise(model, states, rng):
    return model(states, key=rng)[2]


def train(online_params, states, actions, target, support, rng):
    # Split the current rng into 3 for updating the rng after this call
    rng, rng1, rng2 = jax.random.split(rng, num=3)

    def loss_fn(params):
        def q_online(state, key):
            return full_rainbow_apply(params, state, key=key, support=support)

        logits = get_logits(q_online, states, rng)
        chosen_action_logits = jax.vmap(lambda x, y: x[y])(logits, actions)
        loss = jax.vmap(lambda t, l: -jnp.sum(t * jax.nn.log_softmax(l)))(target, chosen_action_logits)
        return jnp.mean(loss)

    mean_loss, grad = jax.value_and_grad(loss_fn)(online_params)
    online_params = jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, online_params, grad)

    return online_params, mean_loss, rng2


key = jax.random.PRNGKey(0)
k_torso, k_head, k_states, k_train = jax.random.split(key, 4)
params = {
    "torso": jax.random.normal(k_torso, (6, HIDDEN)) * 0.1,
    "head": init_noisy(k_head, HIDDEN, NUM_ACTIONS * NUM_ATOMS),
}
support = jnp.linspace(-10.0, 10.0, NUM_ATOMS)
batch = 32
states = jax.random.normal(k_states, (batch, 6))
actions = jnp.arange(batch) % NUM_ACTIONS
target = jnp.full((batch, NUM_ATOMS), 1.0 / NUM_ATOMS)

params, loss, rng = jax.jit(train)(params, states, actions, target, support, k_train)
print("loss", loss)
# The noise the loss saw, as get_logits draws it: one key for the whole batch.
noise = get_noise(lambda s, key: full_rainbow_apply(params, s, key=key, support=support), states, rng)
print("same noise for every state in the batch:", bool(jnp.all(noise == noise[0])))
