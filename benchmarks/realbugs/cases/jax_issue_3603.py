# source: https://github.com/jax-ml/jax/issues/3603
# expect: JAX207,JAX202
# line: 13
# observed: jax 0.10.2 CPU: un-jitted the scan runs (prints [1]); jitted at the call site, ConcretizationTypeError at line 13: the scan's `length` is the traced argument `length`
# batch: 14
import jax


def do_stuff(length):
    def f(carry, x):
        return carry, [None]

    carry, _ = jax.lax.scan(f, [1], xs=None, length=length)
    return carry


print(do_stuff(10))
try:
    jax.jit(do_stuff)(10)
except jax.errors.ConcretizationTypeError as e:
    print("ConcretizationTypeError:", str(e).splitlines()[0][:80])
