# source: https://github.com/jax-ml/jax/issues/3877
# expect: JAX804
# line: 19
# observed: jax 0.10.2 CPU: ValueError at line 19
# batch: 1
import jax
import jax.numpy as np


def recursion(depth, seed, xt, xl):
    seed, sample_seed = jax.random.split(seed)
    if depth == 2:
        return xl
    xl = xl + jax.random.normal(sample_seed, ())
    return recursion(depth + 1, seed, xt, xl)


# xt has 7 rows to map over, xl only 2
print(jax.vmap(recursion, in_axes=(None, None, 0, 0))(
    0, jax.random.PRNGKey(2), np.linspace(0, 1, 7), np.zeros([2])))
