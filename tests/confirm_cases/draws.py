"""Key reuse as the program's own run shows it (tests/test_confirm_draws.py): draws inside a
helper the flagged line calls, draws inside the program's jitted calls, and draws of
different sizes from one key."""
import jax
import jax.numpy as jnp

key = jax.random.key(0)
data = jax.random.normal(key, (100, 2))
weights = jax.random.normal(key, (2,))  # REAL sizes: the first row of `data` again
print(data @ weights)


def shuffled_top(x, key):
    return jax.random.permutation(key, x)[:2]


def pick_two(pos, neg, key):
    a = shuffled_top(pos, key)
    b = shuffled_top(neg, key)  # REAL helper: the same shuffle of other data
    return a, b


pick_two(jnp.arange(4.0), jnp.arange(4.0) + 10, jax.random.key(1))


def twice(key):
    a = jax.random.normal(key, (2,))
    b = jax.random.normal(key, (2,))
    return a + b


base = jax.random.key(2)
for i in range(2):
    out = twice(jax.random.fold_in(base, i))  # DECOY loop-helper: a new key per call


@jax.jit
def noisy_pair(key, x):
    a = x + jax.random.normal(key, x.shape)
    b = x + jax.random.normal(key, x.shape)  # REAL jitted: the same noise twice
    return a, b


noisy_pair(jax.random.key(3), jnp.zeros(3))


@jax.jit
def noisy(key, x):
    return x + jax.random.normal(key, x.shape)  # DECOY jitted-calls: each call its own key


for k in jax.random.split(jax.random.key(4), 2):
    noisy(k, jnp.zeros(3))


def fixed_noise_loss(p):
    def body(i, total):
        noise = jax.random.normal(jax.random.key(5), (2,))  # REAL hoisted: one draw under grad
        return total + jnp.sum(p * noise)
    return jax.lax.fori_loop(0, 4, body, 0.0)


jax.grad(fixed_noise_loss)(1.0)


# Identical numbers that never reach one result (the ledger's false findings, rebuilt):
timing_key = jax.random.key(6)
w_big = jax.random.normal(timing_key, (4, 4))
x_big = jax.random.normal(timing_key, (8, 4))  # DECOY discarded: they meet only in `r` below
for _ in range(2):
    r = jnp.stack([w_big @ x_big[i] for i in range(8)])  # a timing demo: never read
print(f"loop: {0.5:.2f} ms")

zero_key = jax.random.key(7)
population = jax.random.uniform(zero_key, (3,)) * 0.0  # the draw's numbers are dropped
offsets = jax.random.uniform(zero_key, (3,))  # DECOY times zero: meets only a product by 0
print(population + offsets)

meet_key = jax.random.key(8)
kept_a = jax.random.normal(meet_key, (3,))
kept_b = jax.random.normal(meet_key, (3,))  # REAL printed: the same numbers, added and shown
print(kept_a + kept_b)

