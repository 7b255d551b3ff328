# source: https://github.com/google/objax/issues/208
# expect: JAX102
# line: 18
# observed: jax 0.10.2 CPU: eager calls give 0.00729, 0.10429, 0.08260; jax.jit(function) gives 0.01066005 three times (the generator's key update at line 18 runs only at trace time and stores a tracer on DEFAULT_GENERATOR), and the next eager draw normal((2,)) raises UnexpectedTracerError (leaked uint32[2] tracer created at line 18)
# batch: 11
import jax
import jax.numpy as jnp


class Generator:
    """A stateful random generator in the style of objax.random.Generator: its key is
    split on every draw and the new key stored back on the object."""

    def __init__(self, seed=0):
        self.key = jax.random.PRNGKey(seed)

    def __call__(self):
        self.key, subkey = jax.random.split(self.key)
        return subkey


DEFAULT_GENERATOR = Generator(0)


def uniform(shape, generator=DEFAULT_GENERATOR):
    return jax.random.uniform(generator(), shape)


def normal(shape, stddev=1.0, generator=DEFAULT_GENERATOR):
    return stddev * jax.random.normal(generator(), shape)


def function():
    d = uniform((1,))
    return d


for _ in range(3):
    print(function())
print("-------------")
function_jit = jax.jit(function)
for _ in range(3):
    print(function_jit())
print("-------------")
print(normal((2,)))
