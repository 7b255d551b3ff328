# source: https://github.com/secretflow/spu/issues/148
# expect: JAX201
# line: 30
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 30
# batch: 3
import jax
import jax.numpy as jnp
import numpy as np
from jax import random


@jax.jit
def fit(X: np.ndarray) -> np.ndarray:
    n_clusters = 5
    tol = 1e-4
    max_iter = 10
    indice = random.choice(random.PRNGKey(0), X.shape[0], shape=(n_clusters,), replace=False)
    centroids = jnp.take(X, indice, axis=0)

    labels = jnp.zeros(X.shape[0])

    for i in range(max_iter):
        old_centroids = centroids.copy()
        labels = jnp.argmin(jnp.linalg.norm(X[:, None, :] - centroids[None], axis=-1), axis=1)
        centroids = jnp.array(
            [jnp.sum(X * (labels == j)[:, jnp.newaxis], axis=0) / jnp.maximum(jnp.sum(labels == j), 1)
             for j in range(n_clusters)])

        # This is the line that causes the error
        if jnp.all(jnp.less(jnp.max(jnp.abs(centroids - old_centroids)), tol)):
            break

    return centroids


print(fit(np.random.rand(50, 4)).shape)
