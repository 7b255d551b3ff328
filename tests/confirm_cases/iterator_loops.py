"""JAX105 in the body of a lax loop the program itself runs at import (test_confirm_iterator_loops):
a body traced once reads the iterator once for all its iterations."""
import jax
from jax import lax

items = iter(range(100))
print(lax.fori_loop(0, 10, lambda i, x: x + next(items), 0))  # REAL ten iterations

singles = iter(range(100))
print(lax.fori_loop(0, 1, lambda i, x: x + next(singles), 0))  # DECOY one iteration


def body(carry, _):
    return carry + next(items), None  # REAL scan: five steps


print(lax.scan(body, 0, None, length=5)[0])


values = jax.numpy.arange(10)
print(lax.fori_loop(0, 10, lambda i, x: x + values[i], 0))  # DECOY indexed: reads no iterator


def batcher(it):
    return lambda: next(it)  # REAL helper lambda: made here, called in the scan body


fetch = batcher(iter(range(100)))
print(lax.scan(lambda c, _: (c + fetch(), None), 0, None, length=4)[0])


def fetcher(it):
    return lambda: next(it)  # DECOY eager loop: each iteration reads its own item


fetch_each = fetcher(iter(range(100)))
with jax.disable_jit():
    print(lax.fori_loop(0, 4, lambda i, x: x + fetch_each(), 0))
