"""Eager lax control flow at JAX402 lines: what compiles, and why."""
import jax
import jax.numpy as jnp


def step(carry, x):
    return carry + x, None


def decay(x, rate):
    def body(carry, _):  # a new function on each call: jit(scan) compiles anew
        return carry * rate, None

    return jax.lax.scan(body, x, None, length=3)[0]  # REAL fresh body


def grow(n):
    def body(carry, x):
        return carry + x, None

    # A longer input on each call: scan compiles on every call for the new shape, whether
    # or not its body is a new function.
    return jax.lax.scan(body, jnp.zeros(()), jnp.ones(n))[0]  # DECOY new shapes


def once(x):
    def body(carry, _):
        return carry + 1.0, None

    return jax.lax.scan(body, x, None, length=3)[0]  # DECOY called once


def steady(x):
    return jax.lax.scan(step, x, jnp.ones((3,) + x.shape))[0]  # DECOY steady


def cleared(x):
    return jax.lax.scan(step, x, jnp.ones((3,) + x.shape))[0]  # DECOY cleared caches


x = jnp.ones(2)
for i in range(4):
    x = decay(x, 0.5)
    grow(i + 2)
    steady(x)
    jax.clear_caches()  # the program empties JAX's caches: the same step compiles again
    cleared(x)
once(x)
