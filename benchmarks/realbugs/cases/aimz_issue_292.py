# source: https://github.com/markean/aimz/issues/292
# expect: JAX501
# line: 31
# observed: jax 0.10.2 CPU (4 host devices): the predictive noise of every observation shard is identical (printed: True): the scalar key enters shard_map replicated (PartitionSpec()), and each device splits that same key into the same per-draw keys
# batch: 13
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import jit, random, shard_map
from jax.sharding import Mesh, PartitionSpec


def _sample_forward(kernel, rng_keys, samples, model_kwargs):
    """Posterior predictive: one draw of the likelihood per posterior sample."""
    return jax.vmap(lambda k, s: kernel(k, s, **model_kwargs))(rng_keys, samples)


def linear_model(rng_key, sample, X):
    mean = X @ sample["beta"]
    return mean + sample["sigma"] * random.normal(rng_key, mean.shape)


def _create_sharded_sampler(mesh):
    def f(kernel, num_samples, rng_key, samples, X):
        rng_keys = random.split(rng_key, num=num_samples)
        return _sample_forward(kernel, rng_keys=rng_keys, samples=samples, model_kwargs={"X": X})

    (axis,) = mesh.axis_names
    rng_spec = samples_spec = PartitionSpec()
    x_spec = PartitionSpec(axis)
    out_spec = PartitionSpec(None, axis)
    return partial(jit, static_argnames=["kernel", "num_samples"])(
        partial(shard_map, mesh=mesh, in_specs=(None, None, rng_spec, samples_spec, x_spec),
                out_specs=out_spec, check_vma=False)(f))


class ImpactModel:
    def __init__(self, kernel, posterior):
        self.kernel = kernel
        self.posterior = posterior
        self.mesh = Mesh(np.array(jax.devices()), ("obs",))
        self._sampler = _create_sharded_sampler(self.mesh)

    def predict(self, X, rng_key):
        num_samples = self.posterior["beta"].shape[0]
        return self._sampler(self.kernel, num_samples, rng_key, self.posterior, X)


posterior = {"beta": jnp.zeros((100, 3)), "sigma": jnp.ones(100)}
model = ImpactModel(linear_model, posterior)
X = jnp.zeros((8, 3))
y_pred = model.predict(X, random.PRNGKey(0))
n_dev = len(jax.devices())
per_shard = np.asarray(y_pred).reshape(100, n_dev, -1)
print("devices:", n_dev, "noise identical on every shard:", all(np.array_equal(per_shard[:, 0], per_shard[:, d]) for d in range(n_dev)))
