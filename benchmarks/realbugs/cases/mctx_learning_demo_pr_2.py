# source: https://github.com/kenjyoung/mctx_learning_demo/pull/2
# expect: JAX907
# line: 9
# observed: jax 0.10.2 CPU: ModuleNotFoundError at line 9
# batch: 3
import jax
import jax.numpy as jnp
from jax import grad, jit
from jax.experimental.optimizers import adam


def loss(params, obs, target):
    return jnp.mean((obs @ params - target) ** 2)


opt_init, opt_update, get_params = adam(3e-4)
opt_state = opt_init(jnp.zeros((4, 2)))


@jit
def update(i, opt_state, obs, target):
    return opt_update(i, grad(loss)(get_params(opt_state), obs, target), opt_state)


print(get_params(update(0, opt_state, jnp.ones((3, 4)), jnp.ones((3, 2)))))
