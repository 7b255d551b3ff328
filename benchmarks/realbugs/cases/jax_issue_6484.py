# source: https://github.com/jax-ml/jax/issues/6484
# expect: JAX701
# line: 20
# observed: jax 0.10.2 CPU: with the reporter's own "simple fix" `norm` (a `jnp.where(norm_sq < eps, 0, jnp.sqrt(norm_sq))`), `jax.grad(l2_dist_sq)(x, x)` is still [nan nan nan], like `jnp.linalg.norm`; `oracle_l2_dist_sq` gives [0. 0. 0.]: the untaken sqrt branch has an infinite derivative at norm_sq = 0 and its 0 cotangent times inf is NaN
# batch: 15
# (the report's code, its proposed `norm` helper used in the squared-distance loss it was meant to fix)
import jax
import jax.numpy as jnp

x = jnp.array([1., 2., 3.])
print(jax.grad(jnp.linalg.norm)(x - x))  # [nan nan nan]

# This should be the same as l2_dist_sq
oracle_l2_dist_sq = lambda x, y: (x - y).dot(x - y)
print(jax.grad(oracle_l2_dist_sq)(x, x))  # [0 0 0]


def norm(x, eps=1e-9):
    norm_sq = x.dot(x)
    return jnp.where(norm_sq < eps, 0, jnp.sqrt(norm_sq))


l2_dist_sq = lambda x, y: norm(x - y) ** 2
print(jax.grad(l2_dist_sq)(x, x))
