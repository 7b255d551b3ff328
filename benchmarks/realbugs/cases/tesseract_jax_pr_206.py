# source: https://github.com/pasteurlabs/tesseract-jax/pull/206
# expect: JAX601
# line: 17
# observed: jax 0.10.2 CPU (2 shared cores, load 9.5): the table reports vectoradd_api/apply_jit_1,000,000 at 0.014 ms per call (and apply_jit_100,000 at 0.017 ms) while the same call takes 1.09 ms once each result is waited for: time_call stops the clock as soon as the jitted apply has been dispatched, so jit looks 300x faster than eager instead of ~4x
# batch: 9
import time

import jax
import jax.numpy as jnp


def time_call(fn, *args, repeat=20):
    fn(*args)  # warm-up / compile
    start = time.perf_counter()
    for _ in range(repeat):
        fn(*args)
    return (time.perf_counter() - start) / repeat


def vectoradd(inputs):
    a, b = inputs["a"], inputs["b"]
    return {"result": a["v"] * a.get("s", 1.0) + b["v"] * b.get("s", 1.0)}


def apply_tesseract(inputs):
    return vectoradd(inputs)


apply_jit = jax.jit(apply_tesseract)


def make_inputs(n):
    return {"a": {"v": jnp.ones(n), "s": 2.0}, "b": {"v": jnp.arange(n, dtype=jnp.float32), "s": 0.5}}


def run_benchmarks(sizes=(100_000, 1_000_000)):
    results = {}
    for n in sizes:
        inputs = make_inputs(n)
        results[f"vectoradd_api/apply_{n:,}"] = time_call(apply_tesseract, inputs)
        results[f"vectoradd_api/apply_jit_{n:,}"] = time_call(apply_jit, inputs)
    return results


if __name__ == "__main__":
    for name, seconds in run_benchmarks().items():
        print(f"{name:40s} {1e3 * seconds:8.3f} ms")
    inputs = make_inputs(1_000_000)
    blocked = time_call(lambda x: jax.block_until_ready(apply_jit(x)), inputs)
    print(f"{'apply_jit_1,000,000 (blocked)':40s} {1e3 * blocked:8.3f} ms")
