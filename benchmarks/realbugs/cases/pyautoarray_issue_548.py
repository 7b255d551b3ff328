# source: https://github.com/PyAutoLabs/PyAutoArray/issues/548
# expect: JAX701
# line: 32
# observed: jax 0.10.2 CPU: the figure of merit is finite (-931.89) but its gradient is nan for both centre and intensity; with the safe denominator (divide by where(max_sig > 0, max_sig, 1)) the gradient is finite (0): the adapt image is exactly 0 on every mapped pixel, so max_sig = 0 and the untaken pixel_signals / max_sig is 0/0, whose derivative poisons the gradient through where
# batch: 10
import jax
import jax.numpy as jnp
import numpy as np


def adaptive_pixel_signals_from(
    pixels,
    signal_scale,
    pix_indexes_for_sub_slim_index,
    slim_index_for_sub_slim_index,
    adapt_data,
    xp=np,
):
    """Per source pixel, the mean adapt-image signal of the image pixels mapped to it, normalised to 1."""
    signals = adapt_data[slim_index_for_sub_slim_index]
    if xp is np:
        pixel_signals = np.zeros(pixels)
        pixel_counts = np.zeros(pixels)
        np.add.at(pixel_signals, pix_indexes_for_sub_slim_index, signals)
        np.add.at(pixel_counts, pix_indexes_for_sub_slim_index, 1.0)
    else:
        pixel_signals = xp.zeros(pixels).at[pix_indexes_for_sub_slim_index].add(signals)
        pixel_counts = xp.zeros(pixels).at[pix_indexes_for_sub_slim_index].add(1.0)
    pixel_counts = xp.where(pixel_counts > 0, pixel_counts, 1.0)
    pixel_signals = pixel_signals / pixel_counts
    max_sig = xp.max(pixel_signals)
    pixel_signals = xp.where(max_sig > 0, pixel_signals / max_sig, pixel_signals)
    return pixel_signals**signal_scale


class AdaptiveRegularization:
    def __init__(self, inner_coefficient=1.0, outer_coefficient=10.0, signal_scale=2.0):
        self.inner, self.outer, self.signal_scale = inner_coefficient, outer_coefficient, signal_scale

    def regularization_weights_from(self, mapper, adapt_data, xp):
        signals = adaptive_pixel_signals_from(
            mapper.pixels, self.signal_scale, mapper.pix_indexes, mapper.slim_indexes, adapt_data, xp=xp)
        return (self.inner * signals + (1.0 - signals) * self.outer) ** 2


class Mapper:
    def __init__(self, n_image_pixels, pixels, seed=0):
        rng = np.random.default_rng(seed)
        self.pixels = pixels
        self.slim_indexes = np.arange(n_image_pixels)
        self.pix_indexes = rng.integers(0, pixels, size=n_image_pixels)


grid = jnp.stack(jnp.meshgrid(jnp.linspace(-1, 1, 20), jnp.linspace(-1, 1, 20)), -1).reshape(-1, 2)
mapper = Mapper(n_image_pixels=400, pixels=50)
regularization = AdaptiveRegularization()
source_values = jnp.linspace(0.1, 1.0, 50)


def figure_of_merit(params):
    # The adapt image: a Gaussian whose emission lands nowhere near the masked pixels.
    r2 = jnp.sum((grid - params["centre"]) ** 2, axis=-1)
    adapt_data = params["intensity"] * jnp.exp(-r2 / (2 * 0.05**2))
    weights = regularization.regularization_weights_from(mapper, adapt_data, xp=jnp)
    return -0.5 * jnp.sum(weights * source_values**2)


params = {"centre": jnp.array([8.0, 8.0]), "intensity": jnp.array(1.0)}
print("figure of merit:", figure_of_merit(params))
print("gradient:", jax.grad(figure_of_merit)(params))
