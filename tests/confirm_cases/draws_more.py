"""Key reuse cases of the draws tests (test_confirm_draws) that need a fork of their own: a
key defaulted on the `def` line, helpers drawing in a scan body, a generator."""
import jax
import jax.numpy as jnp


def noisy_mean(mu, rkey=jax.random.key(9)):  # REAL default key: built once, when the def ran
    return mu + jax.random.normal(rkey, (4,)).mean()  # the draw the default key makes


for _ in range(2):
    print(noisy_mean(1.0))  # the same mean twice


class Pairs:
    def fresh_pair(self, key=None):
        if key is None:
            return jax.random.normal(jax.random.key(10), (3,)) + jax.random.normal(jax.random.key(11), (3,))
        a = jax.random.normal(key, (3,))  # the first draw from the key no call passes
        b = jax.random.normal(key, (3,))  # DECOY default left out: no call passes `key`
        return a + b


print(Pairs().fresh_pair())  # a method call: not replayed, so the recipe builds the arguments


def jitter(x, rng):
    return x + 0.1 * jax.random.normal(rng, x.shape)


def walk(x0, rng):
    def step(x, _):
        x = jitter(x, rng)  # REAL scan helper: the closed-over key, the same each step
        return x, x
    return jax.lax.scan(step, x0, None, length=3)[1]


print(walk(jnp.zeros(2), jax.random.key(12)))


def walk_split(x0, rng):
    def split_step(carry, _):
        x, key = carry
        key, sub = jax.random.split(key)
        x = jitter(x, sub)  # DECOY scan helper: a new subkey each step
        return (x, key), x
    return jax.lax.scan(split_step, (x0, rng), None, length=3)[1]


print(walk_split(jnp.zeros(2), jax.random.key(13)))


def stream(key):
    while True:
        yield jax.random.normal(key, (2,))  # DECOY generator: the same batch, never read


first_batch, second_batch = next(stream(jax.random.key(14))), next(stream(jax.random.key(14)))
