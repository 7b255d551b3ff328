# source: https://github.com/jax-ml/jax/issues/17319
# expect: JAX702
# line: 29
# observed: jax 0.10.2 CPU: five time.time() values 0.1 s apart (1795546998.39 ... 1795546999.00 outside) all print as t 1795547008.0 inside the jitted function, and the phase elapsed since t0 is 0.0 every time: without x64 the Python float is truncated to float32, whose spacing near 1.8e9 is 128 s
# batch: 8
import time

import jax
import jax.numpy as jnp


@jax.jit
def print_t(t):
    jax.debug.print("t {t}", t=t)
    return t


@jax.jit
def elapsed_phase(t, t0, period):
    return jnp.sin(2 * jnp.pi * (t - t0) / period)


if __name__ == "__main__":
    print("Testing with time.time()")
    t0 = time.time()
    for _ in range(5):
        t = time.time()
        print("outside of jit", t)
        print_t(t)
        print("phase", elapsed_phase(t, t0, 1.0))
        time.sleep(0.1)
