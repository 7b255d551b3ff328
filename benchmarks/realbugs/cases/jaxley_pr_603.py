# source: https://github.com/jaxleyverse/jaxley/pull/603
# expect: JAX204
# line: 27
# observed: jax 0.10.2 CPU: TracerArrayConversionError at line 27 (np.sqrt(np.sum(...)) on the traced xyz difference) when the loss is jitted; eager, the same loss returns 1.25
# batch: 9
import jax
import jax.numpy as jnp
import numpy as np


class Compartment:
    def __init__(self, xyz):
        self.xyz = xyz


class Cell:
    def __init__(self, compartments):
        self.compartments = compartments

    def branch(self, index):
        return self.compartments[index]

    def distance(self, a, b):
        """Euclidean distance between two compartments, in um."""
        start_xyz = self.compartments[a].xyz
        end_xyz = self.compartments[b].xyz
        return np.sqrt(np.sum((start_xyz - end_xyz) ** 2))


def build_cell(shift):
    xyz = [jnp.array([0.0, 0.0, 0.0]), jnp.array([3.0, 4.0, 0.0]) * shift]
    return Cell([Compartment(p) for p in xyz])


def loss(shift, target=5.0):
    cell = build_cell(shift)
    # synaptic delay grows with the distance between the two compartments
    delay = 0.25 * cell.distance(0, 1)
    return jnp.abs(delay - 0.25 * target) + delay


print(loss(jnp.array(1.0)))
print(jax.jit(loss)(jnp.array(1.0)))
