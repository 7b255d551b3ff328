# source: https://github.com/AshishKumar4/FlaxDiff/pull/4
# expect: JAX402
# line: 44
# observed: jax 0.10.2 CPU: JAX_LOG_COMPILES shows 'Compiling jit(sample_model_fn)' 3 times for 3 generate_images calls (one per epoch): the @jax.jit def inside generate_images is a new function on every call
# batch: 8
import jax
import jax.numpy as jnp


class DiffusionSampler:
    def __init__(self, apply_fn, params, max_timesteps=1000, image_size=8):
        self.apply_fn = apply_fn
        self.params = params
        self.max_timesteps = max_timesteps
        self.image_size = image_size

        def sample_model(params, x_t, t):
            eps = self.apply_fn(params, x_t, t)
            x_0 = x_t - eps
            return x_0, eps

        self.sample_model = jax.jit(sample_model)

    def take_next_step(self, current_samples, reconstructed_samples, pred_noise, current_step, next_step):
        ratio = next_step / jnp.maximum(current_step, 1)
        return reconstructed_samples + ratio[:, None, None, None] * pred_noise

    def sample_step(self, sample_model_fn, current_samples, current_step, next_step):
        step_ones = jnp.ones((len(current_samples),), dtype=jnp.int32)
        current_step = step_ones * current_step
        next_step = step_ones * next_step
        pred_images, pred_noise = sample_model_fn(current_samples, current_step)
        return self.take_next_step(current_samples, pred_images, pred_noise, current_step, next_step)

    def get_steps(self, start_step, end_step, diffusion_steps):
        return jnp.linspace(end_step, start_step, diffusion_steps, dtype=jnp.int16)[::-1]

    def generate_images(self, params=None, num_images=4, diffusion_steps=5, start_step=None, end_step=0, rng=None):
        if rng is None:
            rng = jax.random.PRNGKey(42)
        samples = jax.random.normal(rng, (num_images, self.image_size, self.image_size, 3))
        params = params if params is not None else self.params

        @jax.jit
        def sample_model_fn(x_t, t):
            return self.sample_model(params, x_t, t)

        if start_step is None:
            start_step = self.max_timesteps
        steps = self.get_steps(start_step, end_step, diffusion_steps)
        for i in range(0, len(steps)):
            current_step = steps[i]
            next_step = steps[i + 1] if i + 1 < len(steps) else 0
            samples = self.sample_step(sample_model_fn, samples, current_step, next_step)
        return jnp.clip(samples, -1, 1)


def apply_fn(params, x_t, t):
    return params["w"] * x_t * (t[:, None, None, None] / 1000.0)


params = {"w": jnp.array(0.1)}
sampler = DiffusionSampler(apply_fn, params)
for epoch in range(3):
    params = {"w": params["w"] * 0.9}
    images = sampler.generate_images(params=params, rng=jax.random.PRNGKey(epoch))
    print(epoch, float(images.mean()))
