"""The opt-in performance hints: JAX407 (unrolled Python loops) and JAX602 (a host
copy of a jitted step's result on every iteration). Each is silent by default and
silent wherever the slow path is not definite."""

from __future__ import annotations

import textwrap


def findings(lint, code, select=("JAX407", "JAX602")):
    return lint(textwrap.dedent(code), select=list(select))


STEP = """
    import jax
    import jax.numpy as jnp
    import numpy as np

    @jax.jit
    def train_step(w, x):
        return w * 0.9, jnp.mean(x * w)
"""


def test_logging_every_step_is_reported_only_when_selected(lint):
    code = STEP + """
    def train(w, batches, writer):
        for i, x in enumerate(batches):
            w, loss = train_step(w, x)
            writer.add_scalar("loss", loss.item(), i)
    """
    assert findings(lint, code) == [(13, "JAX602")]
    assert lint(textwrap.dedent(code)) == []  # opt-in: not in the default selection


def test_reads_that_are_not_every_step_or_not_only_logging_are_silent(lint):
    code = STEP + """
    def every_n(w, batches):
        for i, x in enumerate(batches):
            w, loss = train_step(w, x)
            if i % 100 == 0:
                print(float(loss))

    def early_stop(w, batches):
        history = []
        for x in batches:
            w, loss = train_step(w, x)
            history.append(float(loss))
            if float(loss) < 1e-3:  # decides: the loop needs the value every step
                break

    def rollout(w, env):
        obs = env.reset()
        for t in range(100):
            w, action = train_step(w, obs)
            obs = env.step(np.asarray(action))  # the environment needs it on the host
            print(float(action))

    def collected(w, batches):
        losses = []
        for x in batches:
            w, loss = train_step(w, x)
            losses.append(loss)
        return [float(l) for l in losses]

    def eager(w, batches):
        for x in batches:
            loss = jnp.mean(x)  # not a jitted step
            print(float(loss))
    """
    assert findings(lint, code) == []


def test_the_step_result_itself_and_fstrings_are_reads(lint):
    code = STEP + """
    def train(w, batches):
        for x in batches:
            print(f"{jax.device_get(train_step(w, x))}")
            w, loss = train_step(w, x)
            print(f"loss={loss}")
    """
    assert findings(lint, code) == [(12, "JAX602"), (14, "JAX602")]


def test_long_loops_in_traced_code(lint):
    code = """
    import jax
    import jax.numpy as jnp
    from jax import lax

    N_STEPS = 10 * 100

    @jax.jit
    def simulate(x, n):
        for i in range(N_STEPS):
            x = x + jnp.sin(x)
        for i in range(n):  # a parameter: not known to be long (and static only if declared)
            x = x + 1
        for i in range(8):
            x = x * 2
        names = []
        for i in range(500):  # builds Python values only: nothing is added to the program
            names.append(str(i))
        return x

    def eager(x):
        for i in range(1000):
            x = x + 1
        return x

    def body(carry, x):
        for i in range(0, 400, 2):
            carry = carry + x
        return carry, carry

    lax.scan(body, 0.0, jnp.ones(3))
    """
    assert findings(lint, code) == [(10, "JAX407"), (27, "JAX407")]
