# source: https://github.com/huggingface/diffusers/issues/5277
# expect: JAX601
# line: 32
# observed: jax 0.10.2 CPU: "finished in 0.10 s"; 1.6-2.0 s with block_until_ready (the wait moved to np.asarray)
# batch: 1
import time

import jax
import jax.numpy as jnp
import numpy as np


def denoise_step(latents, t):
    return latents - 0.01 * jnp.tanh(jnp.einsum("bij,bkj->bik", latents, latents) @ latents) * t


@jax.jit
def generate(latents):
    def body(t, x):
        return denoise_step(x, t / 50.0)
    return jax.lax.fori_loop(0, 200, body, latents)


def decode(latents):
    return (jnp.clip(latents, -1, 1) + 1) * 127.5


latents = jax.random.normal(jax.random.PRNGKey(0), (8, 512, 64))
generate(latents)  # warm up
start = time.time()
images = decode(generate(latents))
print(f"finished in {time.time() - start:.2f} s")
images = np.asarray(images)  # the wait actually happens here
print(images.shape)
