# source: https://github.com/LouisDesdoigts/dLux/issues/260
# expect: JAX207
# line: 21
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 21 (`np.arange(n)` in pixel_fn, "It arose in the jnp.arange argument 'stop'"): under the lax.cond branch the pixel counts, turned into an array by nd_coords, are tracers; the same layer outside lax.cond works
# batch: 12
import jax
import jax.numpy as np
from jax.tree_util import tree_map


def nd_coords(npixels, pixel_scales=1.0, offsets=0.0, indexing="xy"):
    """dLux.utils.nd_coords: pixel-centre coordinates for a grid of npixels, one axis per entry."""
    npixels = np.array(npixels)
    ndim = npixels.size
    pixel_scales = np.broadcast_to(np.asarray(pixel_scales, float), (ndim,))
    offsets = np.broadcast_to(np.asarray(offsets, float), (ndim,))

    def pixel_fn(n, offset, scale):
        # TODO: calculate the start and end points first and then use linspace
        # so that ops are done on floats not arrays
        pix = np.arange(n) - (n - 1) / 2.0
        pix *= scale
        pix -= offset
        return pix

    pixels = tree_map(pixel_fn, list(npixels), list(offsets), list(pixel_scales))
    positions = np.array(np.meshgrid(*pixels, indexing=indexing))
    return np.squeeze(positions)


class ApplyJitter:
    """A detector layer that blurs the PSF by a Gaussian jitter kernel, when `apply` is set."""

    def __init__(self, sigma, kernel_size=9, apply=True):
        self.sigma = sigma
        self.kernel_size = kernel_size
        self.apply = apply

    def generate_kernel(self, pixel_scale):
        coords = nd_coords((self.kernel_size, self.kernel_size), pixel_scale)
        kernel = np.exp(-0.5 * np.sum(coords ** 2, axis=0) / self.sigma ** 2)
        return kernel / kernel.sum()

    def _jitter(self, psf, pixel_scale):
        return jax.scipy.signal.convolve(psf, self.generate_kernel(pixel_scale), mode="same")

    def __call__(self, psf, pixel_scale):
        return jax.lax.cond(self.apply, lambda p: self._jitter(p, pixel_scale), lambda p: p, psf)


psf = np.zeros((32, 32)).at[16, 16].set(1.0)
layer = ApplyJitter(sigma=1.5)
print("outside cond:", layer._jitter(psf, 1.0).sum())
print("under cond:", layer(psf, 1.0).sum())
