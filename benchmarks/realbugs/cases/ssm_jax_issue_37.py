# source: https://github.com/lindermanlab/ssm-jax/issues/37
# expect: JAX901,JAX908
# line: 12
# observed: jax 0.10.2 CPU: ImportError "cannot import name 'tree_multimap' from 'jax.tree_util'" at line 12, when the package's utils module (imported by ssm.hmm) is loaded; the HMM parameter check below never runs
# batch: 14
from functools import partial

import jax.numpy as np
import jax.random as jr
from jax import jit, lax, vmap
from jax.tree_util import register_pytree_node_class, tree_map
from jax.tree_util import tree_multimap, tree_leaves


# --- ssm/utils.py ---
def tree_all_equal(tree1, tree2):
    """Return True if two pytrees have the same leaves."""
    return all(tree_leaves(tree_multimap(lambda x, y: np.all(x == y), tree1, tree2)))


# --- ssm/hmm/base.py ---
@register_pytree_node_class
class GaussianHMM:
    def __init__(self, num_states, initial_probs, transition_matrix, means, scales):
        self.num_states = num_states
        self.initial_probs = initial_probs
        self.transition_matrix = transition_matrix
        self.means = means
        self.scales = scales

    def tree_flatten(self):
        return (self.initial_probs, self.transition_matrix, self.means, self.scales), self.num_states

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(aux, *children)

    @partial(jit, static_argnums=(2,))
    def sample(self, key, num_steps):
        k0, k1 = jr.split(key)
        z0 = jr.categorical(k0, np.log(self.initial_probs))

        def _step(z, k):
            kz, kx = jr.split(k)
            x = self.means[z] + self.scales[z] * jr.normal(kx, self.means[z].shape)
            z_next = jr.categorical(kz, np.log(self.transition_matrix[z]))
            return z_next, (z, x)

        _, (states, emissions) = lax.scan(_step, z0, jr.split(k1, num_steps))
        return states, emissions


def random_hmm(key, num_states, emission_dim):
    k1, k2 = jr.split(key)
    trans = 0.9 * np.eye(num_states) + 0.1 / num_states
    return GaussianHMM(num_states, np.ones(num_states) / num_states, trans / trans.sum(1, keepdims=True),
                       jr.normal(k1, (num_states, emission_dim)), np.ones((num_states, emission_dim)))


hmm = random_hmm(jr.PRNGKey(0), 3, 2)
copy = tree_map(lambda x: x, hmm)
print("equal after copy:", tree_all_equal(hmm, copy))
print(hmm.sample(jr.PRNGKey(1), 100)[1].shape)
