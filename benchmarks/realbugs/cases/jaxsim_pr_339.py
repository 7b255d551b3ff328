# source: https://github.com/gbionics/jaxsim/pull/339
# expect: JAX701
# line: 35
# observed: jax 0.10.2 CPU: the zero rotation is the identity ([0.3 -0.2 1.]), jax.jacobian at 0.1 rad is finite, jax.jacobian at the zero vector is [nan nan nan]: jnp.where selects the identity quaternion but the untaken branch's vector / theta has an infinite derivative at theta = 0 (safe_norm keeps the norm itself finite)
# batch: 11
import jax
import jax.numpy as jnp


def safe_norm(array, axis=None):
    """Norm with a finite gradient at zero: the zero case is replaced by ones before the norm."""
    is_zero = jnp.allclose(array, 0.0)
    array = jnp.where(is_zero, jnp.ones_like(array), array)
    norm = jnp.linalg.norm(array, axis=axis)
    return jnp.where(is_zero, 0.0, norm)


class Quaternion:
    @staticmethod
    def to_dcm(quaternion):
        w, x, y, z = quaternion
        return jnp.array([
            [1 - 2 * (y**2 + z**2), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x**2 + z**2), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x**2 + y**2)],
        ])

    @staticmethod
    def from_axis_angle(vector):
        """Quaternion (w, x, y, z) of the rotation by |vector| about vector / |vector|."""
        theta = safe_norm(vector)
        return jnp.where(
            theta == 0.0,
            jnp.array([1.0, 0.0, 0.0, 0.0]),
            jnp.hstack([jnp.cos(theta / 2), jnp.sin(theta / 2) * vector / theta]),
        )


def rotate_link(axis_angle, point):
    return Quaternion.to_dcm(Quaternion.from_axis_angle(axis_angle)) @ point


point = jnp.array([0.3, -0.2, 1.0])
print("rotation of zero angle:", rotate_link(jnp.zeros(3), point))
print("jacobian at 0.1 rad:", jax.jacobian(rotate_link)(jnp.array([0.1, 0.0, 0.0]), point)[0])
print("jacobian at zero:", jax.jacobian(rotate_link)(jnp.zeros(3), point)[0])
