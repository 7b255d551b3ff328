# source: https://github.com/jax-ml/jax/issues/802
# expect: JAX601
# line: 56
# observed: jax 0.10.2 CPU (2 shared cores, load 17.8): f returns after 12.4 s, the timer around foo.factors.sum() reads 224 ms, and printing the value then takes 6.5 s: the ALS sweeps and the sum are only dispatched when the clock is read, and the first read of the value waits for them
# batch: 10
import time

import jax
import jax.numpy as jnp
from jax import jit


def khatri_rao(U, V):
    return (U[:, None, :] * V[None, :, :]).reshape(-1, U.shape[1])


class CPDecomposition:
    """Rank-R CP decomposition of a 3-way tensor by alternating least squares."""

    def __init__(self, rank):
        self.rank = rank

    def f(self, X, n_sweeps=40, seed=0):
        I, J, K = X.shape

        @jit
        def g(A, B, C):
            X1 = X.reshape(I, J * K)
            X2 = jnp.moveaxis(X, 1, 0).reshape(J, I * K)
            X3 = jnp.moveaxis(X, 2, 0).reshape(K, I * J)
            A = jnp.linalg.solve((B.T @ B) * (C.T @ C), (X1 @ khatri_rao(B, C)).T).T
            B = jnp.linalg.solve((A.T @ A) * (C.T @ C), (X2 @ khatri_rao(A, C)).T).T
            C = jnp.linalg.solve((A.T @ A) * (B.T @ B), (X3 @ khatri_rao(A, B)).T).T
            return A, B, C

        kA, kB, kC = jax.random.split(jax.random.PRNGKey(seed), 3)
        A = jax.random.normal(kA, (I, self.rank))
        B = jax.random.normal(kB, (J, self.rank))
        C = jax.random.normal(kC, (K, self.rank))
        for _ in range(n_sweeps):
            A, B, C = g(A, B, C)
        x = jnp.concatenate([A, B, C])
        self.factors = x


key = jax.random.PRNGKey(1)
X = jax.random.normal(key, (120, 120, 120))
foo = CPDecomposition(rank=16)
jnp.zeros((360, 16)).sum().block_until_ready()  # compile the reduction beforehand
start = time.perf_counter()
foo.f(X)
print(f"f returned after {time.perf_counter() - start:.3f} s")

t0 = time.perf_counter()
total = foo.factors.sum()
t1 = time.perf_counter()
print(f"foo.factors.sum() took {1e3 * (t1 - t0):.3f} ms")
t2 = time.perf_counter()
print("value:", float(total))
print(f"displaying it took {time.perf_counter() - t2:.3f} s")
