# source: https://github.com/google/flax/pull/143
# expect: JAX104
# line: 46
# observed: jax 0.10.2 CPU: the reparameterisation noise is drawn once, while jit traces train_step, and reused as a constant: the eps returned by every step is identical (printed: True); the fix in the PR threads a jax.random key (z_rng) through the step
# batch: 12
import jax
import jax.numpy as jnp
import numpy as np


def dense(key, n_in, n_out):
    return {"w": jax.random.normal(key, (n_in, n_out)) * jnp.sqrt(2.0 / n_in), "b": jnp.zeros(n_out)}


class Encoder:
    def __init__(self, latents):
        self.latents = latents

    def init(self, key, n_in):
        k1, k2, k3 = jax.random.split(key, 3)
        return {"hidden": dense(k1, n_in, 500), "mean": dense(k2, 500, self.latents), "logvar": dense(k3, 500, self.latents)}

    def __call__(self, params, x):
        h = jax.nn.relu(x @ params["hidden"]["w"] + params["hidden"]["b"])
        mean = h @ params["mean"]["w"] + params["mean"]["b"]
        logvar = h @ params["logvar"]["w"] + params["logvar"]["b"]
        return mean, logvar


class Decoder:
    def init(self, key, latents, n_out):
        k1, k2 = jax.random.split(key)
        return {"hidden": dense(k1, latents, 500), "out": dense(k2, 500, n_out)}

    def __call__(self, params, z):
        h = jax.nn.relu(z @ params["hidden"]["w"] + params["hidden"]["b"])
        return h @ params["out"]["w"] + params["out"]["b"]


encoder = Encoder(latents=20)
decoder = Decoder()


def reparameterize(mean, logvar):
    std = jnp.exp(0.5 * logvar)
    eps = np.random.normal(size=logvar.shape)
    return mean + eps * std, eps


def vae_apply(params, x):
    mean, logvar = encoder(params["encoder"], x)
    z, eps = reparameterize(mean, logvar)
    return decoder(params["decoder"], z), mean, logvar, eps


def kl_divergence(mean, logvar):
    return -0.5 * jnp.sum(1 + logvar - jnp.square(mean) - jnp.exp(logvar), axis=-1)


def binary_cross_entropy_with_logits(logits, labels):
    return -jnp.sum(labels * jax.nn.log_sigmoid(logits) + (1 - labels) * jax.nn.log_sigmoid(-logits), axis=-1)


@jax.jit
def train_step(params, batch, lr=1e-3):
    def loss_fn(params):
        recon_x, mean, logvar, eps = vae_apply(params, batch)
        loss = jnp.mean(binary_cross_entropy_with_logits(recon_x, batch) + kl_divergence(mean, logvar))
        return loss, eps

    (loss, eps), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return params, loss, eps


k_enc, k_dec, k_data = jax.random.split(jax.random.PRNGKey(0), 3)
params = {"encoder": encoder.init(k_enc, 784), "decoder": decoder.init(k_dec, 20, 784)}
train_ds = (jax.random.uniform(k_data, (5, 32, 784)) > 0.5).astype(jnp.float32)
noises = []
for epoch in range(2):
    for batch in train_ds:
        params, loss, eps = train_step(params, batch)
        noises.append(eps)
print("loss", float(loss))
print("same reparameterisation noise at every step:", all(bool(jnp.all(n == noises[0])) for n in noises))
