# source: https://github.com/jeertmans/DiffeRT/pull/246
# expect: JAX701
# line: 20
# observed: jax 0.10.2 CPU: the path lengths are finite ([5, 3.742, 6.403]), but the gradient of their sum with respect to the transmitters is nan for the third path, whose image-to-receiver ray is parallel to the mirror: where keeps t = 0 there, yet the untaken v / u divides by u = 0 and its infinite derivative times where's zero cotangent is nan
# batch: 10
import jax
import jax.numpy as jnp


def image_of_vertices_with_respect_to_mirrors(vertices, mirror_vertices, mirror_normals):
    incident = vertices - mirror_vertices
    return vertices - 2.0 * jnp.sum(incident * mirror_normals, axis=-1, keepdims=True) * mirror_normals


def intersection_of_rays_with_planes(ray_origins, ray_directions, plane_vertices, plane_normals):
    """Points where the rays meet the planes; a ray parallel to its plane keeps its origin."""
    u = jnp.sum(ray_directions * plane_normals, axis=-1, keepdims=True)
    v = jnp.sum((plane_vertices - ray_origins) * plane_normals, axis=-1, keepdims=True)
    parallel = u == 0.0
    t = jnp.where(parallel, 0.0, v / u)
    return ray_origins + t * ray_directions


def image_method(from_vertices, to_vertices, mirror_vertices, mirror_normals):
    """Single-reflection paths: mirror the source, then intersect the image -> target rays."""
    images = image_of_vertices_with_respect_to_mirrors(from_vertices, mirror_vertices, mirror_normals)
    return intersection_of_rays_with_planes(to_vertices, images - to_vertices, mirror_vertices, mirror_normals)


def path_lengths(from_vertices, to_vertices, mirror_vertices, mirror_normals):
    points = image_method(from_vertices, to_vertices, mirror_vertices, mirror_normals)
    return jnp.linalg.norm(points - from_vertices, axis=-1) + jnp.linalg.norm(to_vertices - points, axis=-1)


mirror_vertices = jnp.zeros((3, 3))
mirror_normals = jnp.array([[0.0, 0.0, 1.0]] * 3)
tx = jnp.array([[0.0, 0.0, 2.0], [1.0, 0.0, 1.0], [0.0, 0.0, 2.0]])
rx = jnp.array([[4.0, 0.0, 1.0], [3.0, 1.0, 2.0], [5.0, 0.0, -2.0]])  # the third ray runs parallel to its mirror

print("lengths:", path_lengths(tx, rx, mirror_vertices, mirror_normals))
loss = lambda tx: jnp.sum(path_lengths(tx, rx, mirror_vertices, mirror_normals))
print("d loss / d tx:", jax.grad(loss)(tx))
