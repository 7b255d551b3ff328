"""`self.n += 1` in a method the program jits as a bound method: it runs once, at trace time
(REAL); the same counter retraced on every call moves every time (DECOY)."""
import jax


class Counter:
    def __init__(self):
        self.n = 0

    def count(self):
        self.n += 1  # REAL counter
        return self.n


class Retraced:
    def __init__(self):
        self.n = 0

    def count(self):
        self.n += 1  # DECOY retraced
        return self.n


counter = Counter()
fast_count = jax.jit(counter.count)
for _ in range(3):
    fast_count()

retraced = Retraced()
slow_count = jax.jit(retraced.count)
for _ in range(3):
    jax.clear_caches()
    slow_count()
