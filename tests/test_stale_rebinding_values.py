"""JAX103 and the values a rebinding gives: an equal value changes nothing traced,
a different one (or one the walk cannot pin down) goes stale. Real libcst parses;
the JAX behaviour behind each case is checked in rules/JAX103.md's examples."""

from __future__ import annotations

import textwrap

from jaxlint.linter import lint_string

HEAD = """\
import jax
import jax.numpy as jnp

scale = jnp.float32(2.0)


@jax.jit
def apply(x):
    return x * scale


apply(jnp.ones(2))
"""


def _codes(tail: str, head: str = HEAD) -> list[tuple[int, str]]:
    source = head + textwrap.dedent(tail)
    return [(f.line, f.code) for f in lint_string(source, path="cell.py", select=["JAX103"])]


def test_rebinding_to_the_same_expression_is_not_stale():
    assert _codes("""\
        scale = jnp.float32(2.0)  # the cell run again
        apply(jnp.ones(2))
        """) == []


def test_rebinding_to_another_value_is_stale():
    assert _codes("""\
        scale = jnp.float32(3.0)
        apply(jnp.ones(2))
        """) == [(9, "JAX103")]


def test_rebinding_to_an_unknown_value_is_stale():
    assert _codes("""\
        scale = jnp.float32(float(input()))
        apply(jnp.ones(2))
        """) == [(9, "JAX103")]


def test_a_conditional_rebinding_to_a_new_constant_is_stale():
    # The walk runs both branches of the `if` before the first call; the value that
    # call sees is the first binding's, not the one the loop's `if` sets later.
    no_first_call = HEAD.replace("apply(jnp.ones(2))\n", "")
    assert _codes("""\
        for i in range(4):
            if i == 2:
                scale = jnp.float32(0.5)
            apply(jnp.ones(2))
        """, no_first_call) == [(9, "JAX103")]
