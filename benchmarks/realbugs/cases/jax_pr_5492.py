# source: https://github.com/jax-ml/jax/pull/5492
# expect: JAX102
# line: 13
# observed: jax 0.10.2 CPU: print(lst) shows [JitTracer(~float32[])]; under checking_leaks: "Exception: Leaked trace DynamicJaxprTrace" for the tracer stored in lst
# batch: 2
import jax
from jax import jit

lst = []


@jit
def f(x):
    lst.append(x)
    return x


f(3.0)
print(lst)
with jax.checking_leaks():
    f(4)
