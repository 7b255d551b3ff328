# source: https://github.com/patrick-kidger/equinox/issues/1062
# expect: JAX403
# line: 41
# observed: jax 0.10.2 CPU, equinox: JAX_LOG_COMPILES shows 'Compiling jit(_step)' 8 times in 8 fitting steps: the int field it counts with is static under filter_jit, so MyModule(it=0), MyModule(it=1), ... each compile anew
# batch: 8
import equinox as eqx
import jax
import jax.numpy as jnp


class Scene(eqx.Module):
    morphology: jax.Array
    spectrum: jax.Array
    it: int

    def __call__(self):
        return self.spectrum[:, None, None] * self.morphology[None]


def loss_fn(scene, observation):
    return jnp.sum((scene() - observation) ** 2)


@eqx.filter_jit
def _step(scene, observation, lr):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(scene, observation)
    scene = eqx.apply_updates(
        scene, jax.tree_util.tree_map(lambda g: -lr * g, eqx.filter(grads, eqx.is_inexact_array))
    )
    scene = eqx.tree_at(lambda s: s.it, scene, scene.it + 1)
    return scene, loss


key = jax.random.PRNGKey(0)
observation = jax.random.normal(key, (3, 5, 5))
scene = Scene(morphology=jnp.ones((5, 5)), spectrum=jnp.ones(3), it=0)


def fit(scene, observation, max_iter=8, lr=1e-2):
    for _ in range(max_iter):
        scene, loss = _step(scene, observation, lr)
        print(scene.it, float(loss))
    return scene


scene = fit(scene, observation)
