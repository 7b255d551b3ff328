# source: https://github.com/jax-ml/jax/issues/5206
# expect: JAX102
# line: 15
# observed: jax 0.10.2 CPU: after `init = jit(init)` the two jitted calls return the same value (printed twice), and the module-level `key` now holds a tracer: `random.normal(key, ())` raises UnexpectedTracerError at line 26
# batch: 14
import jax
from jax import jit
from jax import random

key = random.PRNGKey(0)


def init():
    global key
    key, subkey = random.split(key)
    return random.normal(subkey, ())


print(init())
print(init())
init = jit(init)
print(init())
print(init())
print(type(key).__name__)
try:
    print(random.normal(key, ()))
except jax.errors.UnexpectedTracerError as e:
    print("UnexpectedTracerError:", str(e).splitlines()[0][:90])
