# source: https://github.com/google/torchax/issues/17
# expect: JAX104
# line: 16
# observed: jax 0.10.2 CPU: eager rand_plus_one() gives a new 2x2 matrix on each call, the jitted one prints the same matrix twice: the seed drawn from the host generator at trace time is burnt into the compiled function as a constant key
# batch: 8
import functools

import jax
import numpy as np

_host_rng = np.random.default_rng()


def _next_key():
    # every random op draws a fresh seed from the host generator, as torch.randint does
    seed = int(_host_rng.integers(0, 2**31 - 1))
    return jax.random.PRNGKey(seed)


def rand(shape):
    return jax.random.uniform(_next_key(), shape)


def jax_jit(fn):
    @functools.wraps(fn)
    def wrapped(*args):
        return jax.jit(fn)(*args)

    return wrapped


def rand_plus_one():
    return rand((2, 2)) + 1


print(rand_plus_one())
print(rand_plus_one())

rand_plus_one_jit = jax_jit(rand_plus_one)
print(rand_plus_one_jit())
print(rand_plus_one_jit())
