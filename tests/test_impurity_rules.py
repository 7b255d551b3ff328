"""JAX101-JAX105: impure traced functions.

Each bad case is linted (real libcst parse) and then run under real JAX on the CPU,
to show the behaviour the message claims: a print that happens once, a counter that
counts traces, a leaked tracer, a stale global, frozen "random" numbers, an iterator
read at trace time. Each silent case is linted clean, and runs.
"""

from __future__ import annotations

import contextlib
import io
import re
import textwrap

import pytest

from jaxlint.linter import expected_findings, lint_string

jax = pytest.importorskip("jax")

_TRACER = re.compile(r"Tracer|Traced<")


def findings(code: str, select=("JAX1",)) -> set[tuple[int, str]]:
    return {(f.line, f.code) for f in lint_string(code, select=list(select))}


def check_marked(code: str) -> str:
    """The `# expect:` marks of a snippet are exactly its JAX1xx findings."""
    code = textwrap.dedent(code)
    assert findings(code) == {(line, c) for line, c in expected_findings(code) if c.startswith("JAX1")}
    return code


def run(code: str) -> tuple[dict, str]:
    """Exec a snippet as its own module; return its namespace and what it printed."""
    namespace = {"__name__": "jaxlint_impurity_case"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<case>", "exec"), namespace)
    return namespace, out.getvalue()


# --------------------------------------------------------------------- JAX101
PRINT_IN_JIT = """
import jax

@jax.jit
def f(x):
    print("f got", x)  # expect: JAX101
    return x * 2

for v in (1.0, 2.0, 3.0):
    f(v)
"""


def test_jax101_print_runs_once_and_shows_a_tracer():
    code = check_marked(PRINT_IN_JIT)
    _, out = run(code)
    lines = out.splitlines()
    assert len(lines) == 1 and _TRACER.search(lines[0]), out
    with jax.disable_jit():
        _, eager = run(code)
    assert eager.splitlines() == ["f got 1.0", "f got 2.0", "f got 3.0"]


def test_jax101_helpers_logging_and_lax_bodies():
    code = check_marked("""
        import logging
        import jax
        from jax import lax

        logger = logging.getLogger("jaxlint.case")

        def describe(x):
            print("shape", x.shape)  # static values only: not reported
            return x

        @jax.jit
        def step(x):
            logger.info("x = %s", x)  # expect: JAX101
            logging.warning("compiling step")  # a constant message announces the trace: not reported
            return describe(x) + 1

        def body(i, total):
            print(i, total)  # expect: JAX101
            return total + i

        lax.fori_loop(0, 3, body, 0)
        step(1.0)
    """)
    _, out = run(code)
    # The fori_loop body printed tracers once, not three concrete lines.
    body_lines = [line for line in out.splitlines() if not line.startswith("shape")]
    assert len(body_lines) == 1 and _TRACER.search(body_lines[0]), out


def test_jax101_vmap_prints_tracers_on_every_call_but_static_text_is_fine():
    code = check_marked("""
        import jax
        import jax.numpy as jnp

        def f(x):
            print("batch element:", x)  # expect: JAX101
            print("running f")
            return x * 2

        g = jax.vmap(f)
        g(jnp.ones(2))
        g(jnp.ones(2))
    """)
    _, out = run(code)
    shown = [line for line in out.splitlines() if line.startswith("batch element")]
    assert len(shown) == 2 and all("VmapTracer" in line for line in shown), out
    assert out.count("running f") == 2  # vmap reruns the Python code: a static message works


def test_jax101_grad_alone_prints_values_every_call_so_it_is_silent():
    code = check_marked("""
        import jax

        def loss(w):
            print("w =", w)
            return w * w

        g = jax.grad(loss)
        g(1.0)
        g(2.0)
    """)
    _, out = run(code)
    lines = out.splitlines()
    assert len(lines) == 2 and "primal=1.0" in lines[0] and "primal=2.0" in lines[1], out


def test_jax101_silent_cases_run_cleanly():
    code = check_marked("""
        import jax
        import jax.numpy as jnp

        def report(v):
            print("host value", v)

        @jax.jit
        def f(x):
            jax.debug.print("x = {}", x)
            jax.debug.callback(report, x)
            jax.debug.callback(lambda v: print("lambda value", v), x)
            return x + 1

        def not_traced(x):
            print("eager", x)
            return x

        print("result", f(1.0))
        not_traced(2.0)
    """)
    _, out = run(code)
    assert "host value 1.0" in out and "lambda value 1.0" in out and "eager 2.0" in out


# --------------------------------------------------------------------- JAX102
def test_jax102_appended_tracer_leaks():
    code = check_marked("""
        import jax
        import jax.numpy as jnp

        global_list = []

        def log2(x):
            global_list.append(x)  # expect: JAX102
            return jnp.log(x) / jnp.log(2.0)

        jax.make_jaxpr(log2)(3.0)
    """)
    ns, _ = run(code)
    leaked = ns["global_list"][0]
    assert isinstance(leaked, jax.core.Tracer)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        leaked + 1


def test_jax102_leak_checker_fails_the_trace():
    code = check_marked("""
        import jax

        CACHE = {}

        @jax.jit
        def step(x):
            CACHE["last"] = x * 2  # expect: JAX102
            return x
    """)
    ns, _ = run(code)
    jax.clear_caches()
    with pytest.raises(Exception, match="[Ll]eaked"):
        with jax.checking_leaks():
            ns["step"].trace(1.0)


def test_jax102_counter_counts_traces_not_calls():
    code = check_marked("""
        import jax

        calls = 0

        @jax.jit
        def step(x):
            global calls
            calls += 1  # expect: JAX102
            return x * 2

        step(1.0)
        step(2.0)
        step(3.0)
    """)
    ns, _ = run(code)
    assert ns["calls"] == 1


def test_jax102_closures_lax_bodies_and_self():
    code = check_marked("""
        from functools import partial
        import jax
        import jax.numpy as jnp
        from jax import lax

        def make_step():
            history = []

            @jax.jit
            def step(x):
                history.append(x)  # expect: JAX102
                return x + 1
            return step, history

        @jax.jit
        def unrolled(x):
            carries = []

            def body(i, c):
                carries.append(c)  # expect: JAX102
                return c + 1
            out = lax.fori_loop(0, 3, body, x)
            return out

        class Tracker:
            def __init__(self):
                self.last = None

            @partial(jax.jit, static_argnums=0)
            def update(self, x):
                self.last = jnp.tanh(x)  # expect: JAX102
                return x

        step, history = make_step()
        step(1.0)
        tracker = Tracker()
        tracker.update(1.0)
    """)
    ns, _ = run(code)
    assert isinstance(ns["history"][0], jax.core.Tracer)
    with pytest.raises(jax.errors.UnexpectedTracerError):
        ns["tracker"].last + 1


def test_jax102_silent_cases_run_cleanly():
    code = check_marked("""
        import jax
        import jax.numpy as jnp

        SHAPES = {}

        class Optimizer:
            def update(self, grads, state):
                return grads, state

        opt = Optimizer()

        class Model:
            def __init__(self, w):
                self.w = w  # a new object built inside the trace
                self.layers = []
                self._build(w)

            def _build(self, w):
                self.h = jnp.tanh(w)  # reached only from __init__: still the new object
                self.layers.append(w)

            def __call__(self, x):
                return x * self.w

        @jax.jit
        def step(x):
            outs = []  # local: rebuilt on every trace
            outs.append(x * 2)
            acc = {}
            acc["y"] = x + 1
            SHAPES[x.shape] = x.ndim  # static bookkeeping at trace time
            grads, state = opt.update(x, x)  # an API named update, not dict.update

            def add(v):
                outs.append(v)  # a helper in the same trace
            add(x)
            return Model(x * 2)(outs[0] + acc["y"] + grads)

        step(jnp.ones(2))
    """)
    run(code)


# --------------------------------------------------------------------- JAX103
STALE = """
import jax

g = 0

def impure_uses_global(x):
    return x + g  # expect: JAX103

first = jax.jit(impure_uses_global)(4.0)
g = 10
second = jax.jit(impure_uses_global)(4.0)
"""


def test_jax103_jit_keeps_the_traced_value():
    code = check_marked(STALE)
    ns, _ = run(code)
    assert float(ns["first"]) == 4.0
    assert float(ns["second"]) == 4.0  # stale: g is 10 now
    with jax.disable_jit():
        assert float(jax.jit(ns["impure_uses_global"])(4.0)) == 14.0


def test_jax103_setter_between_two_calls_makes_it_stale():
    code = check_marked("""
        import jax

        learning_rate = 0.1

        def set_learning_rate(value):
            global learning_rate
            learning_rate = value

        @jax.jit
        def sgd(w, g):
            return w - learning_rate * g  # expect: JAX103

        before = sgd(1.0, 1.0)
        set_learning_rate(0.5)
        after = sgd(1.0, 1.0)
    """)
    ns, _ = run(code)
    assert float(ns["after"]) == pytest.approx(0.9)  # still uses 0.1


def test_jax103_follows_the_jitted_function_by_scope():
    # main's sgd is called, lr rebound, sgd called again: stale. build's sgd, of the
    # same name, is a new function on every call of build: never stale.
    code = check_marked("""
        import jax

        lr = 0.1

        def main(w):
            global lr

            @jax.jit
            def sgd(w, g):
                return w - lr * g  # expect: JAX103

            for _ in range(3):
                w = sgd(w, 1.0)
                lr = lr * 0.5
            return w

        def build(w):
            @jax.jit
            def sgd(w, g):
                return w - lr * g

            return sgd(w, 1.0)

        out = main(1.0)
    """)
    ns, _ = run(code)
    assert float(ns["out"]) == pytest.approx(0.7)  # 1 - 3 * 0.1: lr stayed 0.1 in the trace


def test_jax103_silent_cases_run_cleanly():
    code = check_marked("""
        import jax
        import jax.numpy as jnp

        SCALE = 2.0
        try:
            import scipy
        except ImportError:
            scipy = None
        if SCALE > 1:
            MODE = 1.0
        else:
            MODE = 0.0

        def helper(x):
            return x * 3

        helper = jax.jit(helper)  # rebinding a function is fine

        offset = 0.0

        def shadow(x):
            offset = 1.0  # a local of the same name
            return x + offset

        @jax.jit
        def f(x):
            return helper(x) * SCALE + MODE + shadow(x)

        def eager(x):
            return x + offset  # not jitted: reads the current value

        f(1.0)
        offset = 5.0
        eager(1.0)
        jax.vmap(eager)(jnp.ones(2))
    """)
    run(code)


# --------------------------------------------------------------------- JAX104
def test_jax104_numpy_draw_is_frozen_into_the_program():
    code = check_marked("""
        import jax
        import numpy as np
        import random
        import time

        @jax.jit
        def add_noise(x):
            return x + np.random.normal(size=x.shape) + random.random()  # expect: JAX104, JAX104

        @jax.jit
        def stamp(x):
            return x + time.time()  # expect: JAX104

        x = np.zeros(3, np.float32)
        a, b = add_noise(x), add_noise(x)
        t1, t2 = stamp(0.0), stamp(0.0)
    """)
    ns, _ = run(code)
    np = pytest.importorskip("numpy")
    assert np.array_equal(ns["a"], ns["b"])
    assert float(ns["t1"]) == float(ns["t2"])
    with jax.disable_jit():
        c, d = ns["add_noise"](ns["x"]), ns["add_noise"](ns["x"])
    assert not np.array_equal(c, d)


def test_jax104_silent_cases_run_cleanly():
    code = check_marked("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        init = np.random.normal(size=3)  # module level: runs once on purpose
        rng = np.random.default_rng(0)

        @jax.jit
        def add_noise(key, x):
            np.random.seed(0)  # seeding draws nothing
            return x + jax.random.normal(key, x.shape)

        def augment(x):
            return x + rng.normal()  # eager

        k1, k2 = jax.random.split(jax.random.key(0))
        a, b = add_noise(k1, jnp.zeros(3)), add_noise(k2, jnp.zeros(3))
        augment(1.0)
    """)
    ns, _ = run(code)
    assert not jnp_equal(ns["a"], ns["b"])


def test_jax104_a_draw_after_a_fixed_reseed_is_what_every_call_draws():
    # `np.random.seed(SEED)` first on every call: eager calls draw the same numbers each
    # time, which are the numbers baked in. A draw before the reseed, a reseed under an
    # `if`, or a seed from a name bound twice stay reported.
    code = check_marked("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        SEED = 0
        seed = 0

        @jax.jit
        def fixed(x):
            np.random.seed(SEED)
            return x + np.random.normal(size=3)

        @jax.jit
        def late(x):
            y = x + np.random.normal(size=3)  # expect: JAX104
            np.random.seed(0)
            return y

        @jax.jit
        def maybe(x, flag=True):
            if flag:
                np.random.seed(0)
            return x + np.random.normal(size=3)  # expect: JAX104

        @jax.jit
        def drifting(x):
            np.random.seed(seed)
            return x + np.random.normal(size=3)  # expect: JAX104

        seed = 1
        a, b = fixed(jnp.zeros(3)), fixed(jnp.zeros(3))
    """)
    ns, _ = run(code)
    assert jnp_equal(ns["a"], ns["b"])
    with jax.disable_jit():
        c = ns["fixed"](ns["jnp"].zeros(3))
    assert jnp_equal(ns["a"], c)


def jnp_equal(a, b) -> bool:
    import numpy as np

    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


# --------------------------------------------------------------------- JAX105
def test_jax105_iterator_is_read_at_trace_time():
    code = check_marked("""
        import jax
        from jax import lax

        iterator = iter(range(10))
        wrong = lax.fori_loop(0, 10, lambda i, x: x + next(iterator), 0)  # expect: JAX105
    """)
    ns, _ = run(code)
    assert int(ns["wrong"]) == 0
    with jax.disable_jit():
        ns2, _ = run(code)
    assert int(ns2["wrong"]) == 45


def test_jax105_generator_in_jitted_step_freezes_one_batch():
    code = check_marked("""
        import jax
        import jax.numpy as jnp

        def batches():
            i = 0
            while True:
                i += 1
                yield jnp.full(3, float(i))

        data = batches()

        @jax.jit
        def step(w):
            batch = next(data)  # expect: JAX105
            return w + batch.sum()

        first, second = step(0.0), step(0.0)
    """)
    ns, _ = run(code)
    assert float(ns["first"]) == float(ns["second"]) == 3.0  # batch 1 both times


def test_jax105_factory_lambda_and_iterator_field_freeze_one_batch():
    # A lambda a factory returns is what calling its result runs (as a nested def is), and
    # an object's field that every assignment fills with an iterator advances only at trace time.
    code = check_marked("""
        import jax
        import jax.numpy as jnp

        it = iter([jnp.ones(3), jnp.zeros(3)] * 5)

        def get_batcher():
            return lambda: next(it)  # expect: JAX105

        class Data:
            def __init__(self, xs):
                self._iterator = iter(xs)

            @jax.jit
            def own(self, w):
                fresh = Data([w, w])  # made inside the trace: a new iterator on each trace
                return w + next(fresh._iterator)

        def fit(params, data):
            next_batch = get_batcher()

            def step(carry, i):
                return carry + next_batch() + next(data._iterator), None  # expect: JAX105

            return jax.lax.scan(step, params, jnp.arange(4))[0]

        out = fit(jnp.zeros(3), Data([jnp.ones(3), jnp.zeros(3)] * 5))
    """)
    ns, _ = run(code)
    assert jnp_equal(ns["out"], [8.0, 8.0, 8.0])  # the first batch of each, 4 times


def test_jax105_silent_cases_run_cleanly():
    code = check_marked("""
        import jax
        import jax.numpy as jnp
        from jax import lax

        array = jnp.arange(10)
        total = lax.fori_loop(0, 10, lambda i, x: x + array[i], 0)

        @jax.jit
        def f(xs):
            it = iter([1.0, 2.0])  # created and read in the same trace
            first = next(it)
            for v in [3.0, 4.0]:
                first = first + v
            return xs * first

        data = iter([jnp.ones(2), jnp.ones(2)])
        out = f(next(data))  # read outside jit
    """)
    ns, _ = run(code)
    assert int(ns["total"]) == 45
