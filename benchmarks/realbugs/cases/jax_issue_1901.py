# source: https://github.com/jax-ml/jax/issues/1901
# expect: JAX303
# line: 12
# observed: jax 0.10.2 CPU: AttributeError at line 12
# batch: 4
import jax
import jax.numpy as np


def energy(positions, i, displacement):
    # move particle i and recompute the pair energy
    moved = jax.ops.index_update(positions, i, positions[i] + displacement)
    d = moved[:, None, :] - moved[None, :, :]
    r2 = np.sum(d ** 2, axis=-1) + np.eye(positions.shape[0])
    return np.sum(1.0 / r2)


print(jax.grad(energy, argnums=2)(np.arange(6.0).reshape(3, 2), 1, np.array([0.1, 0.0])))
