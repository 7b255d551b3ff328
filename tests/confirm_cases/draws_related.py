"""Different samplers on one key (tests/test_confirm_draws.py): a pair counts only when the
numbers show it. uniform and normal read the same bits of the key (one is an increasing
function of the other); randint splits its key first, and a key split after it drew gives
children whose draws are new numbers."""
import jax

key = jax.random.key(0)
u = jax.random.uniform(key, (8,))
n = jax.random.normal(key, (8,))  # REAL related: an increasing function of `u`
print(u + n)

int_key = jax.random.key(1)
x = jax.random.normal(int_key, (8,))
y = jax.random.randint(int_key, (8,), 0, 10)  # DECOY randint: it splits its key first
print(x.sum() + y.sum())

split_key = jax.random.key(2)
w = jax.random.normal(split_key, (3,))
split_key, sub = jax.random.split(split_key)  # DECOY split after draw: new numbers below
b = jax.random.normal(sub, (3,))
print(w + b)

two_key = jax.random.key(3)
first = jax.random.normal(two_key, (2,))
second = jax.random.uniform(two_key, (2,))  # TWO numbers: too few to show an order
print(first + second)
