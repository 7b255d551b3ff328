# source: https://github.com/jax-ml/jax/pull/13022
# expect: JAX102
# line: 19
# observed: jax 0.10.2 CPU: "Exception: Leaked trace BatchTrace" (the tracer is referred to by a.dct)
# batch: 2
import jax

jax.config.update("jax_check_tracer_leaks", True)


class A:
    def __init__(self, dct):
        self.dct = dct


a = A({})


def sketch(x):
    a.dct["hi"] = [lambda: x]
    return x


jax.vmap(sketch)(jax.numpy.arange(3))
