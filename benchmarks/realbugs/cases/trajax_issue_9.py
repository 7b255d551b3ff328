# source: https://github.com/google/trajax/issues/9
# expect: JAX901
# line: 17
# observed: jax 0.10.2 CPU: AttributeError at line 17
# batch: 1
import jax
import jax.numpy as np
from jax import vmap


def pad(A):
    return np.pad(A, ((0, 1), (0, 1)))


def project_psd_cone(Q, delta=0.0):
    S, V = np.linalg.eigh(Q)
    S = jax.tree_multimap(lambda s, d: np.maximum(s, d), S, delta * np.ones_like(S))
    return V @ np.diag(S) @ V.T


print(vmap(project_psd_cone)(np.stack([np.eye(2), -np.eye(2)])))
