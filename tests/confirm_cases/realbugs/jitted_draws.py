"""Two draws with one key inside a function the program jits (REAL), and the same function
drawing with two keys split from it (DECOY): under jit the keys are tracers."""
import jax


@jax.jit
def kernel(key, x):
    noise = jax.random.normal(key, x.shape)  # first draw
    accept = jax.random.uniform(key)  # REAL same key
    return x + noise * accept


@jax.jit
def split_kernel(key, x):
    key_noise, key_accept = jax.random.split(key)
    noise = jax.random.normal(key_noise, x.shape)  # split first draw
    accept = jax.random.uniform(key_accept)  # DECOY split
    return x + noise * accept


x = jax.numpy.zeros(2)
for _ in range(3):
    x = kernel(jax.random.PRNGKey(0), x)
    x = split_kernel(jax.random.PRNGKey(0), x)
