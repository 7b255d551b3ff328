"""JAX407 decoys and a real case, each confirmed only by what the program's own trace stages:
a short loop of a cheap body (a small program), a loop whose length the program sets below the
parameter's default, and a short loop of heavy draws (over a thousand jaxpr equations). A file
of their own: the heavy trace needs its own time budget on a loaded machine. The program traces
them with jax.make_jaxpr, which stages the unrolled loop as jit does but compiles nothing (a
thousand-equation compile takes a minute on a loaded machine)."""
import jax
import jax.numpy as jnp


def cheap_loop(x):
    for _ in range(40):  # DECOY cheap-loop: 40 steps of 6 equations, a small program
        x = 0.5 * (x + jnp.roll(x, 1))
    return x


def heavy_loop(x, key):
    for _ in range(40):  # REAL heavy-loop: 40 draws, over a thousand equations
        key, sub = jax.random.split(key)
        x = x + jax.random.normal(sub, x.shape)
    return x


def sized_loop(x, n=60):
    for _ in range(n):  # DECOY sized-loop: the program asks for 35 steps, not the default 60
        x = jnp.sin(x) * jnp.cos(x) + jnp.tanh(x) * 0.5 - jnp.exp(-x) / 3.0 + jnp.sqrt(x * x)
    return x


cheap_loop_jaxpr = jax.make_jaxpr(cheap_loop)(jnp.arange(8.0))
heavy_loop_jaxpr = jax.make_jaxpr(heavy_loop)(jnp.ones(3), jax.random.key(0))


def feed(batches, steps):
    for batch in batches:
        jax.make_jaxpr(sized_loop, static_argnums=1)(batch, steps)


feed([jnp.ones(3)], 35)
