"""Decoys: each DECOY line is flagged by hand and is fine, while the same kind of problem
happens elsewhere in this file. Each REAL line is the problem itself. Confirm mode must
confirm every REAL line and no DECOY line."""
from functools import partial

import jax
import jax.numpy as jnp

SCALE = 2.0
OTHER = 1.0
LEAKED = []


# ---- trace errors
def check_positive(x):
    if x > 0:  # REAL trace: the bool conversion happens here
        return x
    return -x


@jax.jit
def calls_helper(x):
    y = x * 2
    return check_positive(y)  # DECOY trace-call: the error is raised inside the helper


@jax.jit
def bool_not_int(x):
    if x > 0:  # DECOY trace-class: raises TracerBoolConversionError, not ConcretizationTypeError
        return x
    return -x


# ---- recompilation
def double(x, k):
    return x * k


def inc(x):
    return x + 1


double_jit = jax.jit(double, static_argnums=1)
plain_jit = jax.jit(inc)


def nested_calls(x):
    for i in range(3):
        x = plain_jit(double_jit(x, 1.0 + i))  # REAL recompile (double), DECOY for plain_jit
    return x


def called_once(x):
    return double_jit(x, 3.0)  # DECOY recompile-once: compiles once per fresh cache


called_once(jnp.ones(3))  # the import calls it once too


# ---- overhead
def g(x):
    return x * 2 + 1


def made_once(x):
    f = jax.jit(g)  # DECOY overhead: made once per call
    for _ in range(3):
        x = jax.jit(g)(x)  # REAL overhead: a new jitted object each iteration
    return f(x)


# ---- PRNG
def draw_two(key_a, key_b):
    a = jax.random.normal(key_a, (2,))
    b = jax.random.normal(key_b, (2,))  # DECOY prng-params: two parameters, two keys
    return a + b


def mixed(key):
    k1, k2 = jax.random.split(key)
    a = jax.random.normal(k1, (3,))
    b = jax.random.normal(k2, (3,))  # DECOY prng-sites: flagged against line `a`, keys differ
    c = jax.random.uniform(k2, (3,))  # REAL prng: k2 drew already at line `b` (3 numbers show
    # that c is an increasing function of b; two numbers are ordered alike one way or the other)
    return a + b + c


# ---- leaks
@jax.jit
def leaky_inner(x):
    y = x + 1
    LEAKED.append(y)  # REAL leak: a tracer of leaky_inner's trace
    return y


@jax.jit
def calls_leaky(x):
    z = x * 3  # DECOY leak: calls_leaky stores nothing; leaky_inner (its own jit) does
    return leaky_inner(z)


class Model:
    @partial(jax.jit, static_argnums=0)
    def step(self, x):
        self.cache = x * 2  # REAL self-leak: a tracer stored on self
        return x + 1


# ---- stale globals and trace-time print
@jax.jit
def reads_two(x):
    return x * SCALE + 0 * OTHER  # DECOY stale: OTHER does not change the result (SCALE does)


@jax.jit
def prints_two(x):
    print("traced", x)  # REAL print: once per trace
    jax.debug.print("x = {}", x)  # DECOY print: a staged print runs on every call
    return x + 1


# ---- iterators
@jax.jit
def list_body(x):
    vals = [1.0, 2.0, 3.0, 4.0]

    def body(i, acc):
        return acc + jnp.asarray(vals)[i] * x  # DECOY iterator: indexing, not next()

    return jax.lax.fori_loop(0, 4, body, 0.0)


@jax.jit
def iter_body(x):
    it = iter(range(4))

    def body(i, acc):
        return acc + next(it) * x  # REAL iterator: next() runs once, at trace time

    return jax.lax.fori_loop(0, 4, body, 0.0)
