# source: https://github.com/jax-ml/jax/issues/28816
# expect: JAX601
# line: 20
# observed: jax 0.10.2 CPU (2 shared cores, load 25.6): mytime reports 0.0002 s for 30 solves and 0.0093 s for 40 (a fortyfold jump for a third more work; the reporter saw three orders of magnitude between 30 and 40) while the same work waited for takes 0.0806 s and 0.0658 s: the Timer's __exit__ reads the clock when the jitted calls are only dispatched, so the figure depends on how much of the dispatch queue has filled, not on the solve
# batch: 10
import timeit

import jax
import jax.numpy as jnp


class Timer:
    """The part of contexttimer.Timer the report uses: elapsed wall time of a with-block."""

    def __enter__(self):
        self.start = timeit.default_timer()
        return self

    def __exit__(self, *exc):
        self.end = timeit.default_timer()
        self.elapsed = self.end - self.start
        return False


def mytime(callable, msg="", iterations=30):
    callable = jax.jit(callable)
    q = callable()  # warmup
    print(q.shape)  # make sure warmup cant be optimized
    with Timer() as t:
        rs = [callable() for i in range(iterations)]
    print(msg, f"{t.elapsed:.4f} s")
    return rs[-1]


key = jax.random.PRNGKey(0)
k = jax.random.normal(key, (10, 128, 128)) + 128 * jnp.eye(128)
unit = jnp.ones(128)


def solve_systems():
    return jnp.linalg.solve(k, jnp.broadcast_to(unit, (10, 128))[..., None])[..., 0]


solve_jit = jax.jit(solve_systems)
for iterations in (30, 40):
    r = mytime(solve_systems, f"solve, {iterations} iterations:", iterations)
    with Timer() as t:
        jax.block_until_ready([solve_jit() for i in range(iterations)])
    print(f"  the same work waited for: {t.elapsed:.4f} s")
