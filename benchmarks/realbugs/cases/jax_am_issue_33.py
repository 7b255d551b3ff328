# source: https://github.com/CMSL-HKUST/jax-am/issues/33
# expect: JAX902
# line: 9
# observed: jax 0.10.2 CPU: ModuleNotFoundError at line 9
# batch: 1
import jax
import jax.numpy as np
import numpy as onp
from jax.config import config

config.update("jax_enable_x64", True)


class FEM:
    def __init__(self, points, cells):
        self.points = np.array(points)
        self.cells = onp.array(cells)

    def compute_volume(self):
        return jax.vmap(lambda c: np.abs(np.linalg.det(self.points[c[1:]] - self.points[c[0]])) / 6)(self.cells)


fem = FEM(onp.eye(4, 3), [[0, 1, 2, 3]])
print(fem.compute_volume())
