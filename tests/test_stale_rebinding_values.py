"""JAX103 and the values a rebinding gives: an equal value changes nothing traced,
a different one (or one the walk cannot pin down) goes stale. Real libcst parses;
the JAX behaviour behind each case is checked in rules/JAX103.md's examples."""

from __future__ import annotations

import textwrap

import libcst as cst

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


def test_equal_rebinding_under_the_main_guard_is_not_stale():
    # B16 #1-3: a script's program sits in `if __name__ == "__main__":`, which runs
    # once, in order, like module-level code: the same call with the same constant there
    # is no change either; another constant still is.
    body = HEAD.replace("scale = jnp.float32(2.0)\n", "").replace("apply(jnp.ones(2))\n", "")
    main = """\
        if __name__ == "__main__":
            scale = jnp.float32(2.0)
            apply(jnp.ones(2))
            scale = jnp.float32(VALUE)
            apply(jnp.ones(2))
        """
    assert _codes(main.replace("VALUE", "2.0"), body) == []
    assert _codes(main.replace("VALUE", "3.0"), body) == [(8, "JAX103")]


# A notebook that runs its setup cell again (B15 #30-36): `graphdef` is nnx's structure
# of the model, equal when the same class is built again even though the weights are
# new; `optax.adam(1e-3)` again is the same transformation. Checked under jax 0.10.2 and
# flax 0.12.2: the old graphdef equals the new one, and the jitted step that kept the old
# graphdef and optimizer returns what a fresh trace returns.
NNX_HEAD = """\
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class Model(nnx.Module):
    def __init__(self, *, rngs):
        self.linear = nnx.Linear(3, 2, rngs=rngs)

    def __call__(self, x):
        return self.linear(x)


rngs = nnx.Rngs(0)
model = Model(rngs=rngs)
graphdef, state = nnx.split(model)
optimizer = optax.adam(LR0)
opt_state = optimizer.init(state)
x = jnp.ones((4, 3))


@jax.jit
def train_step(x, state, opt_state):
    def loss_fn(state):
        return jnp.mean(nnx.merge(graphdef, state)(x) ** 2)
    gs = jax.grad(loss_fn)(state)
    updates, opt_state = optimizer.update(gs, opt_state)
    return optax.apply_updates(state, updates), opt_state


state, opt_state = train_step(x, state, opt_state)
"""


def _nnx(tail: str, lr0: str = "1e-3") -> list[tuple[int, str, str]]:
    source = NNX_HEAD.replace("LR0", lr0) + textwrap.dedent(tail)
    return [(f.line, f.code, f.message.split("`")[1])
            for f in lint_string(source, path="cell.py", select=["JAX103"])]


SETUP_AGAIN = """\
    model = Model(rngs=rngs)
    graphdef, state = nnx.split(model)
    optimizer = optax.adam(1e-3)
    opt_state = optimizer.init(state)
    state, opt_state = train_step(x, state, opt_state)
    """


def test_setup_cell_run_again_is_not_stale():
    assert _nnx(SETUP_AGAIN) == []


def test_setup_with_another_constant_is_stale():
    # adam(1e-4) traced, adam(1e-3) after: a real change of the learning rate.
    assert _nnx(SETUP_AGAIN, lr0="1e-4") == [(28, "JAX103", "optimizer")]


def test_model_changed_in_place_before_the_split_is_stale():
    # `model.eval()` may change the structure (nnx's deterministic flags are static).
    assert [name for _, _, name in _nnx(SETUP_AGAIN.replace(
        "    graphdef, state", "    model.eval()\n    graphdef, state"))] == ["graphdef"]


def test_arrays_of_a_model_built_again_are_stale():
    # `state` itself is new random weights: a jitted function that closes over it keeps the old ones.
    source = NNX_HEAD.replace("LR0", "1e-3") + textwrap.dedent("""\

        @jax.jit
        def predict(x):
            return nnx.merge(graphdef, state)(x)


        predict(x)
        model = Model(rngs=rngs)
        graphdef, state = nnx.split(model)
        predict(x)
        """)
    found = [f.message.split("`")[1] for f in lint_string(source, path="cell.py", select=["JAX103"])]
    assert found == ["state"]


def test_a_draw_with_the_same_key_is_equal_and_a_host_draw_is_not():
    head = """\
import jax
import jax.numpy as jnp
import numpy as np

key = jax.random.PRNGKey(0)
noise = jax.random.normal(key, (2,))
host = np.random.rand(2)


@jax.jit
def apply(x):
    return x + noise + host


apply(jnp.ones(2))
"""
    assert _codes("""\
        noise = jax.random.normal(key, (2,))
        apply(jnp.ones(2))
        """, head) == []
    assert _codes("""\
        host = np.random.rand(2)
        apply(jnp.ones(2))
        """, head) == [(12, "JAX103")]
    assert _codes("""\
        key = jax.random.PRNGKey(1)
        noise = jax.random.normal(key, (2,))
        apply(jnp.ones(2))
        """, head) == [(12, "JAX103")]


# Dead code (B20 #1-4): what follows a `break`, `continue`, `return` or `raise` of its
# own block never runs, so a rebinding there is no rebinding. Each case is reported
# once the jump is taken out.
DEAD_CODE = {
    "break": """\
        for i in range(3):
            apply(jnp.ones(2))
            if i > 5:
                break
                scale = jnp.float32(3.0)
        """,
    "continue": """\
        for i in range(3):
            apply(jnp.ones(2))
            if i > 5:
                continue
                scale = jnp.float32(3.0)
        """,
    "return": """\
        def reset():
            global scale
            return
            scale = jnp.float32(3.0)


        reset()
        apply(jnp.ones(2))
        """,
    "raise": """\
        for i in range(3):
            apply(jnp.ones(2))
            if i > 5:
                raise ValueError(i)
                scale = jnp.float32(3.0)
        """,
    "if-else": """\
        for i in range(3):
            apply(jnp.ones(2))
            if i > 5:
                break
            else:
                continue
            scale = jnp.float32(3.0)
        """,
}


def test_a_rebinding_after_a_jump_never_runs():
    for jump, tail in DEAD_CODE.items():
        assert _codes(tail) == [], jump
        live = "\n".join(line.split(line.strip())[0] + "pass"
                         if line.strip() in ("break", "continue", "return", "raise ValueError(i)") else line
                         for line in tail.splitlines())
        assert _codes(live + "\n") == [(9, "JAX103")], jump


def test_a_jump_in_one_arm_leaves_the_code_after_the_if_live():
    assert _codes("""\
        for i in range(3):
            apply(jnp.ones(2))
            if i > 5:
                break
            scale = jnp.float32(3.0)
        """) == [(9, "JAX103")]


def test_reachable_stops_after_the_statement_that_ends_the_path():
    from jaxlint.engine.flow import ends_path, reachable
    module = cst.parse_module(textwrap.dedent("""\
        a = 1
        if a:
            return_value = 1
        else:
            raise ValueError
        b = 2
        if a: pass
        else: raise ValueError
        """))
    body = list(module.body)
    assert [ends_path(s) for s in body] == [False, False, False, False]
    loop = cst.parse_module("for i in x:\n    f(i)\n    if i: break\n    else: continue\n    g(i)\n").body[0]
    stmts = list(loop.body.body)
    assert reachable(stmts) == stmts[:2]
    assert reachable(body) == body


# An alias of an imported function (B20 #5-8): `to32 = jnp.float32` binds the same
# function, so `to32(2.0)` is `jnp.float32(2.0)`, an equal value; another constant is not.
def test_a_call_through_an_alias_of_a_library_function_is_that_function():
    alias = HEAD.replace("scale = jnp.float32(2.0)\n", "to32 = jnp.float32\nscale = to32(2.0)\n")
    assert _codes("""\
        scale = to32(2.0)
        apply(jnp.ones(2))
        """, alias) == []
    assert _codes("""\
        scale = jnp.float32(2.0)
        apply(jnp.ones(2))
        """, alias) == []
    assert _codes("""\
        scale = to32(3.0)
        apply(jnp.ones(2))
        """, alias) == [(10, "JAX103")]
    assert _codes("""\
        to32 = jnp.float16
        scale = to32(2.0)
        apply(jnp.ones(2))
        """, alias) == [(10, "JAX103")]


# An attribute of the same object (B20 #5-8): `cfg` is built by a class of this file, so
# another `Config(...)` may differ, but reading `cfg.value` again from the same object,
# untouched since, gives the same value.
CONFIG_HEAD = """\
import jax
import jax.numpy as jnp


class Config:
    def __init__(self, value):
        self.value = value


cfg = Config(2.0)
scale = cfg.value


@jax.jit
def apply(x):
    return x * scale


apply(jnp.ones(2))
"""


def test_an_attribute_of_the_same_untouched_object_is_the_same_value():
    assert _codes("""\
        scale = cfg.value
        apply(jnp.ones(2))
        """, CONFIG_HEAD) == []


def test_an_attribute_of_an_object_changed_or_replaced_since_is_stale():
    for change in ("cfg.value = 3.0", "cfg = Config(3.0)", "setattr(cfg, \"value\", 3.0)", "cfg.__init__(3.0)"):
        assert _codes(f"""\
            {change}
            scale = cfg.value
            apply(jnp.ones(2))
            """, CONFIG_HEAD) == [(16, "JAX103")], change


# What the stale calls return (B15 #33): a notebook that rebinds its optimizer and runs
# a step jitted earlier ten times to profile it, then throws the results away (the next
# cell builds everything anew). The stale value changes nothing the program uses.
def test_stale_calls_whose_results_nothing_reads_are_not_reported():
    assert _codes("""\
        scale = jnp.float32(3.0)
        out = apply(jnp.ones(2))
        for _ in range(3):
            out = apply(out)
        jax.block_until_ready(out)
        out = None
        """) == []


def test_a_stale_result_read_kept_or_shown_is_reported():
    for use in ("print(out)", "total = out.sum()", "out  # shown by the notebook", "out.block_until_ready()"):
        assert _codes(f"""\
            scale = jnp.float32(3.0)
            out = apply(jnp.ones(2))
            for _ in range(3):
                out = apply(out)
            {use}
            out = None
            """) == ([] if use.endswith("ready()") else [(9, "JAX103")]), use
    # Still held by a module-level variable when the program ends: left to its user.
    assert _codes("""\
        scale = jnp.float32(3.0)
        out = apply(jnp.ones(2))
        """) == [(9, "JAX103")]
    # A result not assigned to a name, or assigned elsewhere, is used where it goes.
    for call in ("print(apply(jnp.ones(2)))", "results = [apply(jnp.ones(2))]"):
        assert _codes(f"""\
            scale = jnp.float32(3.0)
            {call}
            """) == [(9, "JAX103")], call


def test_a_jitted_function_that_prints_at_run_time_shows_its_stale_values():
    printing = HEAD.replace("    return x * scale\n", "    jax.debug.print('{}', x * scale)\n    return x * scale\n")
    assert _codes("""\
        scale = jnp.float32(3.0)
        out = apply(jnp.ones(2))
        out = None
        """, printing) == [(9, "JAX103"), (10, "JAX103")]
    assert _codes("""\
        scale = jnp.float32(3.0)
        out = apply(jnp.ones(2))
        out = None
        """) == []


def test_a_stale_result_read_after_a_fresh_definition_is_still_used():
    assert _codes("""\
        scale = jnp.float32(3.0)
        out = apply(jnp.ones(2))


        @jax.jit
        def apply(x):
            return x * scale


        print(apply(out))
        """) == [(9, "JAX103")]


def test_a_stale_result_read_by_a_function_made_after_it_is_used():
    for closure in ("show = lambda: print(out)", "def show():\n    print(out)"):
        assert _codes(f"""\
            scale = jnp.float32(3.0)
            out = apply(jnp.ones(2))
{textwrap.indent(closure, " " * 12)}
            out = None
            """) == [(9, "JAX103")], closure
