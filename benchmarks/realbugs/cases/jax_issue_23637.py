# source: https://github.com/jax-ml/jax/issues/23637
# expect: JAX201
# line: 9
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 9
# batch: 3
import jax


def body(_, c): return bool(c)


jax.lax.fori_loop(0, 5, body, 3.)
