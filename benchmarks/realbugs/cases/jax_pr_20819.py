# source: https://github.com/jax-ml/jax/pull/20819
# expect: JAX102
# line: 11
# observed: jax 0.10.2 CPU: cool holds "JitTracer(float32[3,3])", a tracer leaked into the global list by the jitted call
# batch: 4
import jax
import jax.numpy as jnp

cool = []
def f(x):
  cool.append(repr(x))
  return x.sum()

def do(expr):
  eval(expr)
  print(f'{expr}\n\n{cool.pop()}')
  print('\n===\n')
  jax.clear_caches()

x = jnp.ones((3, 3))

do('jax.jit(f)(x)')
do('jax.grad(f)(x)')
