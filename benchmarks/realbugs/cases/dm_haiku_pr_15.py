# source: https://github.com/google-deepmind/dm-haiku/pull/15
# expect: JAX806
# line: 16
# observed: jax 0.10.2 CPU: grad(loss_with_logits, has_aux=True) works; grad(loss_fn) without aux raises TypeError: iteration over a 0-d array at line 16 ((_, aux), grads = ... unpacks the scalar value)
# batch: 11
import jax
import jax.numpy as jnp


def grad(fun, argnums=0, has_aux=False, holomorphic=False):
    """hk.grad: jax.grad of a function that may use Haiku state, written through value_and_grad."""
    value_and_grad_fun = jax.value_and_grad(fun, argnums=argnums, has_aux=has_aux,
                                            holomorphic=holomorphic)

    def grad_fn(*args, **kwargs):
        (_, aux), grads = value_and_grad_fun(*args, **kwargs)
        return (grads, aux) if has_aux else grads

    return grad_fn


def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss_fn(params, x, y):
    return jnp.mean((mlp(params, x) - y) ** 2)


def loss_with_logits(params, x, y):
    logits = mlp(params, x)
    return jnp.mean((logits - y) ** 2), logits


key = jax.random.PRNGKey(0)
k1, k2 = jax.random.split(key)
params = [(jax.random.normal(k1, (4, 8)) * 0.5, jnp.zeros(8)), (jax.random.normal(k2, (8, 1)) * 0.5, jnp.zeros(1))]
x, y = jnp.ones((16, 4)), jnp.zeros((16, 1))
grads, logits = grad(loss_with_logits, has_aux=True)(params, x, y)
print("with has_aux=True:", logits.shape)
grads = grad(loss_fn)(params, x, y)
print("with has_aux=False:", jax.tree_util.tree_map(jnp.shape, grads))
