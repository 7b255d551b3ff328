# source: https://github.com/google/hypernerf/issues/33
# expect: JAX404
# line: 63
# observed: jax 0.10.2 CPU (1 device): ValueError at line 63: Non-hashable static arguments are not supported ... Static argument (index 0) of type NerfModel for function train_step is non-hashable (its dict field makes the frozen dataclass unhashable); without that field the same pmap runs 3 steps
# batch: 11
import dataclasses
import functools
from typing import Any, Dict, Tuple

import jax
import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass(frozen=True)
class NerfModel:
    """A frozen dataclass like the flax module: hashable only if all its fields are."""

    num_coarse_samples: int = 16
    nerf_skips: Tuple[int, ...] = (4,)
    hyper_slice_method: str = "bendy_sheet"
    embeddings_dict: Dict[str, Any] = dataclasses.field(default_factory=lambda: {"warp": [0, 1, 2], "appearance": [0, 1, 2]})

    def apply(self, params, origins, directions):
        t = jnp.linspace(0.0, 1.0, self.num_coarse_samples)
        points = origins[:, None, :] + t[None, :, None] * directions[:, None, :]
        hidden = jnp.tanh(points @ params["w1"])
        return jnp.mean(hidden @ params["w2"], axis=1)


def train_step(model, rng_key, state, batch, scalar_params):
    def loss_fn(params):
        rgb = model.apply(params, batch["origins"], batch["directions"])
        return jnp.mean((rgb - batch["rgb"]) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(state["params"])
    grads = jax.lax.pmean(grads, axis_name="batch")
    params = jax.tree_util.tree_map(lambda p, g: p - scalar_params["lr"] * g, state["params"], grads)
    return {"params": params}, {"loss": loss}, rng_key


def main():
    model = NerfModel()
    devices = jax.local_devices()
    key = jax.random.PRNGKey(0)
    params = {"w1": 0.1 * jax.random.normal(key, (3, 32)), "w2": 0.1 * jax.random.normal(key, (32, 3))}
    state = jax.tree_util.tree_map(lambda x: jnp.stack([x] * len(devices)), {"params": params})
    keys = jax.random.split(key, len(devices))
    ptrain_step = jax.pmap(
        train_step,
        axis_name="batch",
        devices=devices,
        in_axes=(None, 0, 0, 0, None),
        static_broadcasted_argnums=(0,),
    )
    rng = np.random.default_rng(0)
    for step in range(3):
        batch = {
            "origins": rng.normal(size=(len(devices), 64, 3)).astype(np.float32),
            "directions": rng.normal(size=(len(devices), 64, 3)).astype(np.float32),
            "rgb": rng.uniform(size=(len(devices), 64, 3)).astype(np.float32),
        }
        state, stats, keys = ptrain_step(model, keys, state, batch, {"lr": 0.1})
        print(step, stats["loss"])


main()
