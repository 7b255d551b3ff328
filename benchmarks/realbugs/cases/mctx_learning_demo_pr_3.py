# source: https://github.com/kenjyoung/mctx_learning_demo/pull/3
# expect: JAX901
# line: 56
# observed: jax 0.10.2 CPU: AttributeError "module 'jax' has no attribute 'tree_multimap'" at line 56, in the soft target-network update called from the training loop (`jx` is the module alias of jax)
# batch: 14
import jax as jx
import jax.numpy as jnp
from jax import random


def init_network(key, obs_dim, num_actions, hidden=64):
    k1, k2, k3 = random.split(key, 3)
    return {
        "torso": {"w": random.normal(k1, (obs_dim, hidden)) * 0.1, "b": jnp.zeros(hidden)},
        "pi": {"w": random.normal(k2, (hidden, num_actions)) * 0.1, "b": jnp.zeros(num_actions)},
        "v": {"w": random.normal(k3, (hidden, 1)) * 0.1, "b": jnp.zeros(1)},
    }


def network(params, obs):
    h = jx.nn.relu(obs @ params["torso"]["w"] + params["torso"]["b"])
    logits = h @ params["pi"]["w"] + params["pi"]["b"]
    value = (h @ params["v"]["w"] + params["v"]["b"])[..., 0]
    return logits, value


def loss(params, obs, search_policy, value_targets):
    logits, value = network(params, obs)
    policy_loss = -jnp.mean(jnp.sum(search_policy * jx.nn.log_softmax(logits), axis=-1))
    value_loss = jnp.mean((value - value_targets) ** 2)
    return policy_loss + value_loss


class AgentState:
    def __init__(self, key, obs_dim, num_actions, lr=1e-3, target_tau=0.05):
        self.params = init_network(key, obs_dim, num_actions)
        self.target_params = self.params
        self.lr = lr
        self.target_tau = target_tau


@jx.jit
def sgd_step(params, obs, search_policy, value_targets, lr):
    grads = jx.grad(loss)(params, obs, search_policy, value_targets)
    return jx.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


def get_search_targets(key, params, obs, num_actions):
    # stand-in for mctx.muzero_policy: a noisy improvement of the network's policy
    logits, value = network(params, obs)
    noise = random.gumbel(key, logits.shape)
    return jx.nn.softmax(logits + noise), value


def update_target(agent):
    agent.target_params = jx.tree_multimap(
        lambda t, p: (1 - agent.target_tau) * t + agent.target_tau * p,
        agent.target_params, agent.params)


def train(num_steps=5, obs_dim=8, num_actions=4, batch=16):
    key = random.PRNGKey(0)
    key, init_key = random.split(key)
    agent = AgentState(init_key, obs_dim, num_actions)
    for step in range(num_steps):
        key, obs_key, search_key = random.split(key, 3)
        obs = random.normal(obs_key, (batch, obs_dim))
        search_policy, value_targets = get_search_targets(search_key, agent.target_params, obs, num_actions)
        agent.params = sgd_step(agent.params, obs, search_policy, value_targets, agent.lr)
        update_target(agent)
    return agent


train()
