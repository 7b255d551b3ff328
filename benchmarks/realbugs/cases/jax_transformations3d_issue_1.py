# source: https://github.com/cpgoodri/jax_transformations3d/issues/1
# expect: JAX702
# line: 15
# observed: jax 0.10.2 CPU: the library asks for float64 everywhere (`np.array(..., dtype=np.float64)`, `np.identity(4, dtype=np.float64)` with jax.numpy as np) but nothing enables x64: UserWarning "Explicitly requested dtype float64 requested in array is not available, and will be truncated to dtype float32" at lines 15, 26, 29 and 32, the rotation matrix is float32 (printed) and deviates from the float64 NumPy result by 3.9e-08
# batch: 14
import math

import jax.numpy as np
import numpy as onp

_EPS = onp.finfo(float).eps * 4.0


def unit_vector(data, axis=None):
    data = np.array(data, dtype=np.float64)
    if axis is None:
        return data / np.sqrt(np.dot(data, data))
    return data / np.expand_dims(np.sqrt(np.sum(data * data, axis)), axis)


def rotation_matrix(angle, direction, point=None):
    """Return matrix to rotate about axis defined by point and direction."""
    sina = math.sin(angle)
    cosa = math.cos(angle)
    direction = unit_vector(direction[:3])
    R = np.diag(np.array([cosa, cosa, cosa], dtype=np.float64))
    R = R + np.outer(direction, direction) * (1.0 - cosa)
    direction = direction * sina
    R = R + np.array([[0.0, -direction[2], direction[1]],
                      [direction[2], 0.0, -direction[0]],
                      [-direction[1], direction[0], 0.0]], dtype=np.float64)
    M = np.identity(4, dtype=np.float64)
    M = M.at[:3, :3].set(R)
    if point is not None:
        point = np.array(point[:3], dtype=np.float64)
        M = M.at[:3, 3].set(point - np.dot(R, point))
    return M


def rotation_matrix_np(angle, direction):
    direction = onp.asarray(direction[:3], dtype=onp.float64)
    direction = direction / onp.linalg.norm(direction)
    sina, cosa = math.sin(angle), math.cos(angle)
    R = onp.diag([cosa, cosa, cosa]) + onp.outer(direction, direction) * (1.0 - cosa)
    direction = direction * sina
    R += onp.array([[0.0, -direction[2], direction[1]],
                    [direction[2], 0.0, -direction[0]],
                    [-direction[1], direction[0], 0.0]])
    M = onp.identity(4)
    M[:3, :3] = R
    return M


M = rotation_matrix(0.123, [1.0, 2.0, 3.0])
print(M.dtype)
print("max deviation from float64:", onp.abs(onp.asarray(M, dtype=onp.float64) - rotation_matrix_np(0.123, [1.0, 2.0, 3.0])).max())
