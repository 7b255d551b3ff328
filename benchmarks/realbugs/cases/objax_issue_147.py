# source: https://github.com/google/objax/issues/147
# expect: JAX102
# line: 19
# observed: jax 0.10.2 CPU: predict(x) runs and returns the same noise on both calls, but the next Linear(3, 10) fails with UnexpectedTracerError in jax.random.split (line 18): the jitted predict_op left a tracer in DEFAULT_GENERATOR.key through Generator.__call__ (line 19)
# batch: 9
import jax
import jax.numpy as jnp
import numpy as np


class Generator:
    """Random number generator module: holds a key and splits it on each draw."""

    def __init__(self, seed=0):
        self.key = jax.random.PRNGKey(seed)

    def __call__(self):
        new_key, subkey = jax.random.split(self.key)
        self.key = new_key
        return subkey


DEFAULT_GENERATOR = Generator(0)


def normal(shape, *, mean=0.0, stddev=1.0, generator=DEFAULT_GENERATOR):
    return jax.random.normal(generator(), shape=shape) * stddev + mean


def xavier_normal(shape):
    fan_in, fan_out = shape
    return normal(shape, stddev=(2.0 / (fan_in + fan_out)) ** 0.5)


class Linear:
    def __init__(self, nin, nout):
        self.w = xavier_normal((nin, nout))
        self.b = jnp.zeros(nout)

    def __call__(self, x):
        return x @ self.w + self.b


new_model = Linear(3, 10)


def predict_op(x):
    return new_model(x) + normal((10,))


predict = jax.jit(predict_op)
print(predict(np.zeros((1, 3))))
print(predict(np.zeros((1, 3))))

other = Linear(3, 10)
print(other.w.shape)
