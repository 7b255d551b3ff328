# source: https://github.com/jax-ml/jax/issues/2332
# expect: JAX102
# line: 25
# observed: jax 0.10.2 CPU: after 3 updates loss_list holds 3 LinearizeTracers (printed GradTracer(primal=13.125, ...)), not numbers: np.asarray(fit.loss_list) raises TracerArrayConversionError, because the loss method appends to self.loss_list while jax.grad traces it
# batch: 8
import jax.numpy as jnp
import numpy as np
from jax import grad, vmap


class FourierFit:
    def __init__(self, n_coefficients, lr=1e-3):
        self.n = n_coefficients
        self.lr = lr
        self.loss_list = []
        self.batched_predict = vmap(self.predict, in_axes=(None, 0))

    def predict(self, coefficients, x):
        k = jnp.arange(self.n)
        return jnp.sum(coefficients * jnp.cos(k * x))[None]

    def loss(self, coefficients, train_values, train_labels):
        preds = self.batched_predict(coefficients, train_values)[:, 0]
        l = jnp.sum(jnp.square(preds - train_labels))
        self.loss_list += [l]
        return l

    def update(self, coefficients, x, y):
        grads = grad(self.loss)(coefficients, x, y)
        return coefficients - self.lr * grads


x = jnp.linspace(0.0, jnp.pi, 20)
y = jnp.cos(x) + 0.5 * jnp.cos(2 * x)
fit = FourierFit(n_coefficients=4)
coefficients = jnp.zeros(4)
for i in range(3):
    coefficients = fit.update(coefficients, x, y)
print([type(l).__name__ for l in fit.loss_list])
print(fit.loss_list[0])
try:
    np.save("/dev/null", np.asarray(fit.loss_list))
except Exception as e:
    print(type(e).__name__, str(e)[:80])
