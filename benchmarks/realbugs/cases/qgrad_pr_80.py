# source: https://github.com/qgrad/qgrad/pull/80
# expect: JAX303
# line: 6
# observed: jax 0.10.2 CPU: ImportError at line 6: cannot import name 'index' from 'jax.ops'
# batch: 12
from jax.ops import index, index_update
import jax
import jax.numpy as jnp


def _kth_diag_indices(a, k):
    rows, cols = jnp.diag_indices_from(a)
    if k < 0:
        return rows[-k:], cols[:k]
    elif k > 0:
        return rows[:-k], cols[k:]
    return rows, cols


def basis(N, n=0):
    zeros = jnp.zeros((N, 1), dtype=jnp.complex64)
    return index_update(zeros, index[n, 0], 1.0)


def _make_rot(N, params, idx):
    i, j = idx
    theta, phi = params
    rotation = jnp.eye(N, dtype=jnp.complex64)
    rotation = index_update(rotation, index[i, i], jnp.exp(1j * phi) * jnp.cos(theta))
    rotation = index_update(rotation, index[i, j], -jnp.exp(1j * phi) * jnp.sin(theta))
    rotation = index_update(rotation, index[j, i], jnp.sin(theta))
    rotation = index_update(rotation, index[j, j], jnp.cos(theta))
    return rotation


class Unitary:
    """An N x N unitary from the Clements decomposition: a diagonal of phases times Givens rotations."""

    def __init__(self, N):
        self.N = N

    def __call__(self, thetas, phis, omegas):
        diagonal = jnp.zeros((self.N, self.N), dtype=jnp.complex64)
        for i in range(self.N):
            diagonal = index_update(diagonal, index[i, i], jnp.exp(1j * omegas[i]))
        rotation = jnp.eye(self.N, dtype=jnp.complex64)
        pairs = [(i, i + 1) for i in range(self.N - 1)]
        for (theta, phi), idx in zip(zip(thetas, phis), pairs):
            rotation = _make_rot(self.N, (theta, phi), idx) @ rotation
        return diagonal @ rotation


def fidelity(params, target, N):
    thetas, phis, omegas = params
    psi = Unitary(N)(thetas, phis, omegas) @ basis(N, 0)
    return jnp.abs(jnp.vdot(target, psi)) ** 2


N = 4
target = basis(N, 2)
params = (jnp.ones(N - 1) * 0.3, jnp.zeros(N - 1), jnp.zeros(N))
grads = jax.grad(lambda p: -fidelity(p, target, N))(params)
print(grads)
