# source: https://github.com/jax-ml/jax/pull/5980
# expect: JAX102
# line: 18
# observed: jax 0.10.2 CPU: fast_count() prints 1, 1, 1: self.n += 1 ran once, at trace time
# batch: 3
import jax
import jax.numpy as jnp


class Counter:
    """A simple counter."""

    def __init__(self):
        self.n = 0

    def count(self) -> int:
        """Increments the counter and returns the new value."""
        self.n += 1
        return self.n

    def reset(self):
        """Resets the counter to zero."""
        self.n = 0


counter = Counter()
fast_count = jax.jit(counter.count)
for _ in range(3):
    print(fast_count())
