"""Decoys where a staged recipe would say "confirmed": each flagged line is fine as the program
runs it, and a recipe that rebinds a global, calls a function again, or passes arguments no call
site passes would make the problem happen. Marked `REAL` lines are the same problems as the
program does show them."""
import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

SCALE = 2.0
RATE = 1.0
STEP = 0.5
CALLS = 0


@jax.jit
def scaled(x):
    return x * SCALE  # REAL stale: the program rebinds SCALE between its calls


@jax.jit
def rated(x):
    return x * RATE  # DECOY same-value: the program rebinds RATE to the value it had


@jax.jit
def stepped(x):
    return x * STEP  # DECOY clear-cache: the setter clears jit's cache


def set_step(value):
    global STEP
    STEP = value
    stepped.clear_cache()


scaled(1.0)
SCALE = 3.0
scaled(1.0)
rated(1.0)
RATE = 1.0
rated(1.0)
stepped(1.0)
set_step(0.25)
stepped(1.0)


def apply(x, flag):
    if flag:  # DECOY vmap-flag: unmapped (in_axes None), so a Python bool
        return x * 2
    return x


batched = jax.vmap(apply, in_axes=(0, None))
batched(jnp.ones((4, 3)), True)


def loss(w, scale):
    if scale > 0:  # DECOY grad-only: grad keeps values concrete
        return jnp.sum(w ** 2) * scale
    return jnp.sum(w)


grads = jax.grad(loss)(jnp.ones(3), 1.0)


def fill(buf):
    buf[0] = 1.0  # DECOY numpy: the only caller passes a NumPy buffer
    return buf


fill(np.zeros(3))


def train(x, epochs):
    for epoch in range(epochs):
        x = x + 1
        if epoch == epochs - 1:
            x = jax.jit(lambda v: v * 2)(x)  # DECOY last-epoch: made once per call of train
    return x


train(jnp.ones(3), 3)


def train_all(x, epochs):
    for _ in range(epochs):
        x = jax.jit(lambda v: v * 2)(x)  # REAL fresh: a new lambda every epoch
    return x


train_all(jnp.ones(3), 3)


@jax.jit
def counted(x):
    global CALLS
    CALLS += 1  # DECOY once: the program calls it once
    return x + 1


counted(1.0)


def two_draws(key_a, key_b):
    a = jax.random.normal(key_a, (2,))  # first draw
    b = jax.random.normal(key_b, (2,))  # DECOY keys: the program passes two different keys
    return a, b


two_draws(jax.random.key(1), jax.random.key(2))

x = jnp.ones((300, 300))
t0 = time.perf_counter()
y = (x @ x).block_until_ready()
t1 = time.perf_counter()  # DECOY blocked: the work was done when the clock was read


@partial(jax.jit, static_argnums=1)
def short_loop(x, n):
    for i in range(n):  # DECOY short: the program passes n = 3
        x = x + i
    return x


short_loop(jnp.ones(3), 3)

params = {"w": 1.0}
halved = jax.tree_util.tree_map(lambda p: p / 2, params)  # DECOY tree: not jax.tree_map
z = jnp.ones(2)  # noqa: E501  # DECOY noqa: another tool's code
first = jnp.arange(3.0)[2]  # DECOY index: in bounds
grid = jnp.ones((3, 5))
column = grid.take(jnp.array([4]), axis=1)  # DECOY index-axis: column 4 of 5
element = jnp.take(grid, 7)  # DECOY index-flat: take flattens: element 7 of 15
rows = grid.take(np.array([0, 4]), axis=0)  # REAL index-array: row 4 of 3, filled
