# source: https://github.com/gchq/coreax/issues/470
# expect: JAX601
# line: 44
# observed: jax 0.10.2 CPU: jit_test times the second call of the jitted kernel at 0.00034 s (median of 5), the same call awaited with block_until_ready takes 0.307 s: the clock stops when the call is dispatched, not when the 2000x2000 kernel matrix is computed
# batch: 13
import time
import unittest
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import jit


class SquaredExponentialKernel:
    """A kernel object whose compute method is jitted by the performance tests."""

    def __init__(self, length_scale=1.0, output_scale=1.0):
        self.length_scale = length_scale
        self.output_scale = output_scale

    def compute(self, x, y):
        sq_dist = jnp.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1)
        return self.output_scale * jnp.exp(-sq_dist / (2 * self.length_scale**2))

    def grad_x(self, x, y):
        return jax.vmap(jax.vmap(jax.grad(lambda a, b: self.compute(a[None], b[None])[0, 0]), (None, 0)), (0, None))(x, y)


def jit_test(fn: Callable, *args, **kwargs) -> tuple[float, float]:
    """
    Verify JIT performance by comparing timings of a before and after run of a function.

    The function is called with supplied arguments twice, and timed for each run. These
    timings are returned in a 2-tuple.
    """
    start_time = time.time()
    fn(*args, **kwargs)
    end_time = time.time()
    pre_delta = end_time - start_time
    start_time = time.time()
    fn(*args, **kwargs)
    end_time = time.time()
    post_delta = end_time - start_time
    return pre_delta, post_delta


class TestSquaredExponentialKernel(unittest.TestCase):
    def setUp(self) -> None:
        self.num_samples_to_generate = 5
        self.num_data_points_per_observation = 2000
        self.dimension = 10

    def test_compute(self) -> None:
        x = np.random.random((self.num_samples_to_generate, self.num_data_points_per_observation, self.dimension))
        y = np.random.random((self.num_samples_to_generate, self.num_data_points_per_observation, self.dimension))
        kernel = SquaredExponentialKernel()
        pre, post, blocked = [], [], []
        for i in range(self.num_samples_to_generate):
            fn = jit(lambda *args, **kwargs: kernel.compute(*args, **kwargs))
            deltas = jit_test(fn, x[i], y[i])
            pre.append(deltas[0])
            post.append(deltas[1])
            start = time.time()
            fn(x[i], y[i]).block_until_ready()
            blocked.append(time.time() - start)
        print("second run as timed by jit_test: %.5f s" % np.median(post))
        print("second run when the result is awaited: %.5f s" % np.median(blocked))


if __name__ == "__main__":
    unittest.main()
