# source: https://github.com/michael-0brien/cryojax/issues/58
# expect: JAX502
# observed: jax 0.10.2 CPU: the 3 rendered images are identical (same noise every call)
# batch: 5
import jax
import jax.numpy as jnp


class GaussianDetector:
    """The detector holds the key it was built with."""

    def __init__(self, key, sigma=0.1):
        self.key = key
        self.sigma = sigma

    def sample(self, image):
        return image + self.sigma * jax.random.normal(self.key, image.shape)


class ImagePipeline:
    def __init__(self, detector):
        self.detector = detector

    def render(self, density):
        projection = jnp.sum(density, axis=0)
        return self.detector.sample(projection)


pipeline = ImagePipeline(GaussianDetector(jax.random.PRNGKey(0)))
density = jnp.ones((8, 4, 4))
images = [pipeline.render(density) for _ in range(3)]
print(bool(jnp.all(images[0] == images[1])), bool(jnp.all(images[1] == images[2])))
