# source: https://github.com/google-research/google-research/issues/964
# expect: JAX702
# line: 13
# observed: jax 0.10.2 CPU: UserWarning at line 13 (Explicitly requested dtype float64 requested in zeros is not...)
# batch: 1
import jax
import jax.numpy as np


def render_rays(rays_o, rays_d, n_samples):
    """Dream-fields style ray marching: accumulate along each ray."""
    t_vals = np.linspace(0.0, 1.0, n_samples)
    acc = np.zeros(rays_o.shape[:-1], dtype=np.float64)
    pts = rays_o[..., None, :] + rays_d[..., None, :] * t_vals[:, None]
    return acc + np.sum(pts ** 2, axis=(-1, -2))


print(jax.jit(render_rays, static_argnums=2)(np.ones((4, 3)), np.ones((4, 3)), 8).dtype)
