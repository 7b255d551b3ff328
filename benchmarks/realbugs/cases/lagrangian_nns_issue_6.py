# source: https://github.com/MilesCranmer/lagrangian_nns/issues/6
# expect: JAX801
# line: 36
# observed: jax 0.10.2 CPU: TypeError at line 36 (the `jax.grad(lagrangian, 1)` inside jacfwd; line 37 has the same grad): Gradient only defined for scalar-output functions. Output had shape: (1,) (the learned Lagrangian returns the network's (1,) output once `jnp.squeeze(..., axis=-1)` is removed)
# batch: 12
from functools import partial

import jax
import jax.numpy as jnp


def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [(jax.random.normal(k, (m, n)) * 0.1, jnp.zeros(n)) for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def nn_forward_fn(params, state):
    x = state
    for w, b in params[:-1]:
        x = jax.nn.softplus(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def learned_dynamics(params):
    def lagrangian(q, q_t):
        state = jnp.concatenate([q, q_t])
        return nn_forward_fn(params, state)

    return lagrangian


def lagrangian_eom(lagrangian, state, t=None):
    q, q_t = jnp.split(state, 2)
    hessian_qt = jax.hessian(lagrangian, 1)(q, q_t)
    mixed = jax.jacfwd(jax.grad(lagrangian, 1), 0)(q, q_t)
    dL_dq = jax.grad(lagrangian, 0)(q, q_t)
    q_tt = jnp.linalg.pinv(hessian_qt) @ (dL_dq - mixed @ q_t)
    return jnp.concatenate([q_t, q_tt])


def gln_loss(params, batch):
    state, targets = batch
    preds = jax.vmap(partial(lagrangian_eom, learned_dynamics(params)))(state)
    return jnp.mean((preds - targets) ** 2)


@jax.jit
def update(params, batch, lr=1e-3):
    loss, grads = jax.value_and_grad(gln_loss)(params, batch)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), loss


key = jax.random.PRNGKey(0)
params = init_mlp(key, [4, 128, 128, 1])
state = jax.random.normal(jax.random.PRNGKey(2), (64, 4))
targets = jax.random.normal(jax.random.PRNGKey(1), (64, 4))
for step in range(3):
    params, loss = update(params, (state, targets))
    print(step, loss)
