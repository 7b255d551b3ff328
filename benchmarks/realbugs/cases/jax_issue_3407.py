# source: https://github.com/jax-ml/jax/issues/3407
# expect: JAX701
# line: 13
# observed: jax 0.10.2 CPU: the energy is finite (-0.1219) but every entry of jax.grad(energy)(conf) is nan: the masked-out diagonal still differentiates 1/dij and sqrt at dij = 0, and 0 * inf in the backward pass of jnp.where is nan; the NaN comes from the sqrt at line 13 (the pairwise distance of `conf` with itself, 0 on the diagonal): with the diagonal made safe before the root (`jnp.where(eye, 1.0, s)`) the gradient is finite (checked), so the case's line is the root's, not the where's (29)
# batch: 9
import jax
import jax.numpy as jnp
import numpy as np


def distance(ri, rj):
    dxdydz = jnp.power(ri - rj, 2)
    return jnp.sqrt(jnp.sum(dxdydz, axis=-1))


class Electrostatics:
    def __init__(self, charges, cutoff=None):
        self.charges = jnp.asarray(charges)
        self.cutoff = cutoff

    def energy(self, conf):
        ri = jnp.expand_dims(conf, 0)
        rj = jnp.expand_dims(conf, 1)
        dij = distance(ri, rj)
        qij = jnp.outer(self.charges, self.charges)

        keep_mask = 1 - jnp.eye(conf.shape[0])  # keep everything except diagonals
        dij = jnp.where(keep_mask, dij, jnp.zeros_like(dij))
        eij = jnp.where(keep_mask, qij / dij, jnp.zeros_like(dij))
        return 0.5 * jnp.sum(eij)


def check_forces(potential, conf):
    e = potential.energy(conf)
    forces = -jax.grad(potential.energy)(conf)
    return e, forces


conf = np.array([[1.0, 2.0, 3.0], [0.2, 4.0, 6.0], [-1.0, 0.5, 2.5]])
pot = Electrostatics(charges=[1.3, 0.3, -0.4])
e, forces = check_forces(pot, conf)
print("energy", e)
print("forces", forces)
print("any nan:", bool(jnp.isnan(forces).any()))
