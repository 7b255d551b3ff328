# source: https://github.com/jax-ml/jax/issues/226
# expect: JAX302
# line: 22
# observed: jax 0.10.2 CPU: the loss stays 72.0 on every step: params are never updated
# batch: 3
import jax
import jax.numpy as np


def loss(params, x):
    w, b = params
    return np.sum((x @ w + b) ** 2)


params = [np.ones((3, 2)), np.zeros(2)]
x = np.ones((4, 3))
learning_rate = 0.1
for step in range(3):
    grads = jax.grad(loss)(params, x)
    # params does not get updated: `-=` rebinds the loop variable to a new array
    for param, gradient in zip(params, grads):
        param -= learning_rate * gradient
    print(step, loss(params, x))
