# source: https://github.com/iree-org/iree-jax/pull/55
# expect: JAX905
# line: 18
# observed: jax 0.10.2 CPU: AttributeError at line 18
# batch: 4
import jax
import jax.numpy as jnp


def mlp(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x


params = [(jnp.ones((4, 8)), jnp.zeros(8)), (jnp.ones((8, 2)), jnp.zeros(2))]
x = jnp.ones((3, 4))
computation = jax.xla_computation(mlp)(params, x)
print(computation.as_hlo_text()[:200])
