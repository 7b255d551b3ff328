# source: https://openillumi.com/en/en-jax-jit-static-argnums-array-fix
# expect: JAX404
# line: 23
# observed: jax 0.10.2 CPU: ValueError: Non-hashable static arguments (numpy.ndarray) at line 23
# batch: 7
from functools import partial

import numpy as np
import jax.numpy as jnp
from jax import grad, jit


# the training data never changes, so the reporter froze it as static arguments
@partial(jit, static_argnums=(1, 2))
def loss(r, x, y):
    return jnp.mean((r * x - y) ** 2)


x = np.linspace(0.0, 1.0, 50)
y = 3.0 * x + 0.1 * np.sin(40 * x)
r = 0.0
for step in range(100):
    r = r - 0.5 * grad(loss)(r, x, y)
print(r)
