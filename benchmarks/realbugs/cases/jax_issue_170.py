# source: https://github.com/jax-ml/jax/issues/170
# expect: JAX502
# observed: jax 0.10.2 CPU: the same dropout mask on all 3 calls ([2. 0. 0. 2. 0. 2.] each time)
# batch: 2
import jax.numpy as np
from jax import random
from jax.random import PRNGKey


def Dropout(rate, mode="train", seed=0):
    """Layer construction function for a dropout layer with given rate."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        if mode != "train":
            return inputs
        # the "fix": a fresh key from a constant seed on every call
        rng = PRNGKey(seed)
        keep = random.bernoulli(rng, rate, inputs.shape)
        return np.where(keep, inputs / rate, 0)

    return init_fun, apply_fun


init_fun, apply_fun = Dropout(0.5)
inputs = np.ones((2, 6))
for step in range(3):
    print(apply_fun((), inputs))
