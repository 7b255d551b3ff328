# source: https://github.com/PlasmaControl/DESC/pull/353
# expect: JAX601
# line: 33
# observed: jax 0.10.2 CPU (a loaded 2-core machine): timeit of `jnp.linalg.qr(A_jnp)` reports 2.0 ms per loop against 902 ms for NumPy; the same call with the result awaited (jax.block_until_ready) takes 2051 ms per loop: the timed lambda returns when the QR is dispatched
# batch: 13
"""Dev-guide notebook cells (JAX and BACKEND): show that jax.numpy is a faster drop-in for numpy."""
import timeit

import numpy as np

try:
    import jax
    import jax.numpy as jnp

    use_jax = True
except ImportError:
    jnp = np
    use_jax = False

# give some JAX examples
zeros_jnp = jnp.zeros(4)
zeros_np = np.zeros(4)
print(zeros_jnp)
print(zeros_np)

rng = np.random.default_rng(0)
A_np = rng.random((300, 300))
A_jnp = jnp.asarray(A_np)
jnp.linalg.qr(A_jnp)  # warm up: compile the decomposition once

n = 3
t_np = timeit.timeit(lambda: np.linalg.qr(A_np), number=n) / n
t_jnp = timeit.timeit(lambda: jnp.linalg.qr(A_jnp), number=n) / n
print(f"numpy QR: {t_np * 1e3:.1f} ms per loop")
print(f"jax   QR: {t_jnp * 1e3:.1f} ms per loop")

t_jnp_blocked = timeit.timeit(lambda: jax.block_until_ready(jnp.linalg.qr(A_jnp)), number=n) / n
print(f"jax   QR, result awaited: {t_jnp_blocked * 1e3:.1f} ms per loop")
