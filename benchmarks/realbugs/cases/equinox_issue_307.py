# source: https://github.com/patrick-kidger/equinox/issues/307
# expect: JAX402
# line: 36
# observed: jax 0.10.2 CPU, equinox: JAX_LOG_COMPILES shows 'Compiling jit(loss_fn)' 10 times in 5 episodes (twice per train call, never a cache hit): the @eqx.filter_jit def inside train() is a new function on every call
# batch: 8
import equinox as eqx
import jax
import jax.numpy as jnp

class Policy(eqx.Module):
    layer: eqx.nn.Linear

    def __init__(self, key):
        self.layer = eqx.nn.Linear(4, 2, key=key)

    def __call__(self, obs):
        return self.layer(obs)


def get_future_rewards(rewards, gamma=0.99):
    def step(carry, r):
        carry = r + gamma * carry
        return carry, carry

    _, returns = jax.lax.scan(step, 0.0, rewards[::-1])
    return returns[::-1]


def policy_gradient_loss(logits, actions, advantages):
    log_probs = jax.nn.log_softmax(logits)
    chosen = jnp.take_along_axis(log_probs, actions[:, None], axis=1)[:, 0]
    return -jnp.mean(chosen * advantages)


def train(model, eps_obs, eps_actions, eps_rewards, lr=1e-2):
    @eqx.filter_jit
    def loss_fn(l_model, l_states, l_rewards, l_actions):
        logits = jax.vmap(l_model)(l_states)
        advantages = get_future_rewards(l_rewards)
        return policy_gradient_loss(logits, l_actions.reshape(-1), advantages)

    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, eps_obs, eps_rewards, eps_actions)
    model = jax.tree_util.tree_map(lambda p, g: p - lr * g, model, grads)
    return model, loss


key = jax.random.PRNGKey(0)
model = Policy(key)
for episode in range(5):
    key, k_obs, k_act = jax.random.split(key, 3)
    obs = jax.random.normal(k_obs, (16, 4))
    actions = jax.random.randint(k_act, (16,), 0, 2)
    rewards = jnp.ones(16)
    model, loss = train(model, obs, actions, rewards)
    print(episode, float(loss))
