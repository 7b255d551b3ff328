# source: https://github.com/keras-team/keras/pull/20110
# expect: JAX701
# line: 19
# observed: jax 0.10.2 CPU: divide_no_nan(1., 0.) is 0. but jax.grad(divide_no_nan)(1., 0.) is nan, and the gradient of the relative-error loss is [nan 0.25 0.125 -0.25] for the weight whose target is 0: the masked branch still differentiates x1 / 0
# batch: 9
import jax
import jax.numpy as jnp


def convert_to_tensor(x, dtype=None):
    if dtype is None and isinstance(x, (int, float)):
        dtype = "float32"
    return jnp.asarray(x, dtype=dtype)


def divide_no_nan(x1, x2):
    x1 = convert_to_tensor(x1)
    x2 = convert_to_tensor(x2)
    return jnp.where(x2 == 0, 0, jnp.divide(x1, x2))


class MeanRelativeError:
    """Loss: mean |y_pred - y_true| / |y_true|, zero where the target is zero."""

    def __call__(self, y_true, y_pred):
        err = jnp.abs(y_pred - y_true)
        return jnp.mean(divide_no_nan(err, jnp.abs(y_true)))


def model(w, x):
    return x * w


def compute_loss(w, x, y, loss_fn):
    return loss_fn(y, model(w, x))


x1 = jnp.array(1, dtype=jnp.float32)
x2 = jnp.array(0, dtype=jnp.float32)
print(divide_no_nan(x1, x2), jax.grad(divide_no_nan)(x1, x2))

w = jnp.array([0.5, 1.5, 2.0, 0.8])
x = jnp.ones(4)
y = jnp.array([0.0, 1.0, 2.0, 1.0])
print(jax.grad(compute_loss)(w, x, y, MeanRelativeError()))
