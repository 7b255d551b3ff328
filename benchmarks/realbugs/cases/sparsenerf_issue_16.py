# source: https://github.com/Wanggcong/SparseNeRF/issues/16
# expect: JAX101
# line: 30
# observed: jax 0.10.2 CPU: prints "depth JitTracer(float32[8])" once, at trace time; nothing on the second step
# batch: 4
import jax
import jax.numpy as jnp


def render_rays(params, rays):
    h = jnp.tanh(rays @ params["w1"])
    rgb = jax.nn.sigmoid(h @ params["w2"])
    depth = jnp.abs(h @ params["w3"])
    return rgb, depth[..., 0]


def depth_ranking_loss(depth, depth_prior):
    diff_pred = depth[:, None] - depth[None, :]
    diff_prior = depth_prior[:, None] - depth_prior[None, :]
    return jnp.mean(jax.nn.relu(-diff_pred * jnp.sign(diff_prior)))


@jax.jit
def train_step(params, rays, rgb_gt, depth_prior, lr=5e-4):
    def loss_fn(p):
        rgb, depth = render_rays(p, rays)
        return jnp.mean((rgb - rgb_gt) ** 2) + 0.1 * depth_ranking_loss(depth, depth_prior), depth

    (loss, depth), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
    print("depth", depth)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), loss


k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
params = {"w1": jax.random.normal(k1, (6, 16)), "w2": jax.random.normal(k2, (16, 3)),
          "w3": jax.random.normal(k3, (16, 1))}
for step in range(2):
    params, loss = train_step(params, jnp.ones((8, 6)), jnp.zeros((8, 3)), jnp.arange(8.0))
