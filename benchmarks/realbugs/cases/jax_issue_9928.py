# source: https://github.com/jax-ml/jax/issues/9928
# expect: JAX804
# line: 31
# observed: jax 0.10.2 CPU: ValueError at line 31: vmap in_axes must be ... a tuple of entries corresponding to the positional arguments ..., but got len(in_axes)=2, len(args)=3
# batch: 11
import jax
import jax.numpy as jnp


def posenc(x, min_deg, max_deg):
    scales = 2.0 ** jnp.arange(min_deg, max_deg)
    xb = (x[..., None, :] * scales[:, None]).reshape(x.shape[:-1] + (-1,))
    return jnp.concatenate([x, jnp.sin(xb), jnp.cos(xb)], axis=-1)


def _cast_rays(origin, direction, param):
    """Sample points along one ray and encode them (param: near/far bounds and the number of samples)."""
    t = jnp.linspace(param["near"], param["far"], 32)
    points = origin[None, :] + t[:, None] * direction[None, :]
    return posenc(points, 0, 4)


class MipNerfModel:
    def __init__(self, key, width=64):
        k1, k2 = jax.random.split(key)
        self.w1 = jax.random.normal(k1, (27, width)) * 0.1
        self.w2 = jax.random.normal(k2, (width, 4)) * 0.1

    def __call__(self, rays, param):
        fn = jax.vmap(_cast_rays, (0, 0))
        samples = fn(rays["origins"], rays["directions"], param)
        raw = jax.nn.relu(samples @ self.w1) @ self.w2
        rgb, density = jax.nn.sigmoid(raw[..., :3]), jax.nn.softplus(raw[..., 3])
        weights = density / jnp.sum(density, axis=-1, keepdims=True)
        return jnp.sum(weights[..., None] * rgb, axis=-2)


key = jax.random.PRNGKey(0)
rays = {"origins": jnp.zeros((8, 3)), "directions": jax.random.normal(key, (8, 3))}
model = MipNerfModel(key)
print(model(rays, {"near": 2.0, "far": 6.0}).shape)
