# source: https://github.com/yang-song/score_sde/issues/22
# expect: JAX901
# line: 14
# observed: jax 0.10.2 CPU: AttributeError at line 14
# batch: 1
import jax
import jax.numpy as jnp


def apply_ema(ema_params, new_params, ema_rate):
    # exponential moving average of the parameters, leaf by leaf
    def update(p_ema, p_new):
        return p_ema * ema_rate + p_new * (1.0 - ema_rate)
    return jax.tree_multimap(update, ema_params, new_params)


params = {"dense": {"w": jnp.ones((2, 2)), "b": jnp.zeros(2)}}
print(apply_ema(params, params, 0.999))
