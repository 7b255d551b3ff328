# source: https://github.com/p-doom/jasmine/pull/239
# expect: JAX502
# line: 33
# observed: jax 0.10.2 CPU: the patch mask is [1 1 0 1 1 1 1 0 1 0 0 0 1 1 1 0] at all 4 training steps although train_step gets a fresh rng each step: mask_and_encode rebuilds jax.random.key(0) on every call
# batch: 8
import jax
import jax.numpy as jnp


def patchify(videos, patch_size):
    B, T, H, W = videos.shape
    n = (H // patch_size) * (W // patch_size)
    return videos.reshape(B, T, n, patch_size * patch_size)


class TokenizerMAE:
    def __init__(self, patch_size, mask_prob_max):
        self.patch_size = patch_size
        self.mask_prob_max = mask_prob_max

    def init(self, key):
        return {"proj": jax.random.normal(key, (self.patch_size * self.patch_size, 8)) * 0.1}

    def mask_and_encode(self, params, videos, rng, training=True):
        # --- Preprocess videos ---
        B, T = videos.shape[:2]
        patch_BTNP = patchify(videos, self.patch_size)
        N = patch_BTNP.shape[2]

        # --- Randomly mask patches ---
        mask = jnp.zeros((B, T, N), dtype=bool)
        if training:
            _rng_prob, _rng_mask = jax.random.split(jax.random.key(0), 2)
            mask_prob = jax.random.uniform(_rng_prob, minval=0.0, maxval=self.mask_prob_max)
            mask = jax.random.bernoulli(_rng_mask, mask_prob, (B, T, N))
        patch_BTNP = jnp.where(mask[..., None], 0.0, patch_BTNP)
        return {"latents": patch_BTNP @ params["proj"], "mask": mask}


tokenizer = TokenizerMAE(patch_size=2, mask_prob_max=0.5)
params = tokenizer.init(jax.random.key(1))


@jax.jit
def train_step(params, videos, rng):
    def loss_fn(params):
        out = tokenizer.mask_and_encode(params, videos, rng, training=True)
        return jnp.mean(out["latents"] ** 2), out["mask"]

    (loss, mask), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
    params = jax.tree_util.tree_map(lambda p, g: p - 1e-2 * g, params, grads)
    return params, loss, mask


rng = jax.random.key(42)
videos = jnp.ones((1, 2, 8, 8))
for step in range(4):
    rng, _rng = jax.random.split(rng)
    params, loss, mask = train_step(params, videos, _rng)
    print(step, mask[0, 0].astype(int))
