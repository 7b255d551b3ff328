# source: https://github.com/jax-ml/jax/issues/19424
# expect: JAX206
# line: 33
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 33
# batch: 2
import jax
import jax.numpy as jnp


class SparseTop2MLP:
    def __init__(self, hidden_dim, ffn_dim):
        self.hidden_dim = hidden_dim
        self.ffn_dim = ffn_dim

    def init(self, key):
        k1, k2 = jax.random.split(key)
        return {"w1": jax.random.normal(k1, (self.hidden_dim, self.ffn_dim)),
                "w2": jax.random.normal(k2, (self.ffn_dim, self.hidden_dim))}

    def __call__(self, params, x):
        return jax.nn.silu(x @ params["w1"]) @ params["w2"]


class MixtralSparseMoeBlock:
    def __init__(self, num_experts, hidden_dim, ffn_dim):
        self.experts = [SparseTop2MLP(hidden_dim, ffn_dim) for _ in range(num_experts)]

    def __call__(self, params, expert_mask, hidden_states, routing_weights):
        final_hidden_states = jnp.zeros_like(hidden_states)
        for expert_idx, expert_layer in enumerate(self.experts):
            selected_mask = expert_mask[expert_idx]
            # the tokens routed to this expert: a data-dependent number of indices
            idx, top_x = jnp.nonzero(selected_mask)
            current_state = hidden_states[top_x]
            out = expert_layer(params[expert_idx], current_state) * routing_weights[top_x, idx, None]
            final_hidden_states = final_hidden_states.at[top_x].add(out)
        return final_hidden_states


block = MixtralSparseMoeBlock(num_experts=4, hidden_dim=8, ffn_dim=16)
keys = jax.random.split(jax.random.PRNGKey(0), 4)
params = [expert.init(k) for expert, k in zip(block.experts, keys)]
mask = jnp.zeros((4, 2, 6), dtype=bool).at[0, 0, :3].set(True)
shapes = jax.eval_shape(block, params, mask, jnp.ones((6, 8)), jnp.ones((6, 2)))
print(shapes)
