# source: https://github.com/jax-ml/jax/issues/1629
# expect: JAX207
# line: 12
# observed: jax 0.10.2 CPU: TypeError at line 12
# batch: 4
import jax
import jax.numpy as np


def functional(X, Y, K, m, n, lambda_):
    r = X.shape[0]
    X_imshape = np.reshape(X, (r, m, n), order="F")
    tv = np.sum(np.abs(np.diff(X_imshape, axis=1))) + np.sum(np.abs(np.diff(X_imshape, axis=2)))
    return 0.5 * np.sum((K @ X - Y) ** 2) + lambda_ * tv


jax_gradient_spatial_functional = jax.jit(jax.grad(functional))

m, n, r = 4, 5, 3
X = np.ones((r, m * n))
Y = np.zeros((6, m * n))
K = np.ones((6, r))
print(jax_gradient_spatial_functional(X, Y, K, m, n, 0.1).shape)
