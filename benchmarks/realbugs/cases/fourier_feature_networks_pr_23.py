# source: https://github.com/tancik/fourier-feature-networks/pull/23
# expect: JAX907
# line: 8
# observed: jax 0.10.2 CPU: ImportError at line 8
# batch: 3
import jax.numpy as np
from jax import jit, random
from jax.experimental import optimizers, stax


def make_network(num_layers, num_channels):
    layers = []
    for i in range(num_layers - 1):
        layers += [stax.Dense(num_channels), stax.Relu]
    layers += [stax.Dense(3), stax.Sigmoid]
    return stax.serial(*layers)


init_fn, apply_fn = make_network(4, 256)
opt_init, opt_update, get_params = optimizers.adam(1e-4)
_, params = init_fn(random.PRNGKey(0), (-1, 2))
print(jit(apply_fn)(params, np.ones((5, 2))).shape)
