"""JAX601: timers around JAX work that is never waited for."""

from __future__ import annotations

import textwrap

import pytest


def findings(lint, code):
    return lint(textwrap.dedent(code), select=["JAX6"])


def test_seed_001_dot_product_timing(lint):
    code = """
        import time
        import numpy as np
        import jax.numpy as jnp
        array1 = np.ones((8, 8))
        array2 = jnp.ones((8, 8))
        start_time = time.time()
        res = np.dot(array1, array1)
        print(f"ndarray: {time.time()-start_time:.2f} seconds")
        start_time = time.time()
        res = jnp.dot(array2, array2)
        print(f"DeviceArray: {time.time()-start_time:.2f} seconds")
    """
    assert findings(lint, code) == [(12, "JAX601")]


def test_blocking_before_the_clock_is_fine(lint):
    code = """
        import time
        import jax
        import numpy as np
        import jax.numpy as jnp
        f = jax.jit(lambda x: x @ x)
        x = jnp.ones((8, 8))
        t0 = time.perf_counter(); y = f(x).block_until_ready(); t1 = time.perf_counter()
        t0 = time.perf_counter(); y = f(x); jax.block_until_ready(y); t1 = time.perf_counter()
        t0 = time.perf_counter(); y = np.asarray(f(x)); t1 = time.perf_counter()
        t0 = time.perf_counter(); y = f(x).sum().item(); t1 = time.perf_counter()
        t0 = time.perf_counter(); y = f(x); print(y); t1 = time.perf_counter()
        t0 = time.perf_counter(); y = np.dot(np.ones(3), np.ones(3)); t1 = time.perf_counter()
    """
    assert findings(lint, code) == []


def test_printing_a_string_does_not_wait(lint):
    code = """
        import time
        import jax
        f = jax.jit(lambda x: x * 2)
        f(1.0)  # compiled: the timed call below only dispatches
        t0 = time.monotonic()
        y = f(1.0)
        print("done")
        elapsed = time.monotonic() - t0
    """
    assert findings(lint, code) == [(9, "JAX601")]


def test_first_call_of_a_fresh_jit_is_not_reported(lint):
    # The first call compiles, synchronously, before it dispatches one run (measured
    # on CPU: 156 ms at the clock and when done); jax.jit(g) of a g jitted and called
    # before, a second call, and a call in a loop are warm. Inside a function the timer
    # runs on each call: a lambda jitted there compiles every time, so every run's timer
    # holds a compile (batch 25: measured 0.15-0.20 s to return on each of three runs,
    # a warm call 9-13 ms), and is not reported when the function runs once as far as the
    # file shows; run in a loop it compiles each time (JAX402) and its timer, meant for
    # the run, is reported, as is `jax.jit(g)` of a module-level `g`, warm from the
    # function's second run.
    code = """
        import time
        import jax
        import jax.numpy as jnp

        def g(x):
            return jnp.tanh(x @ x)

        x = jnp.ones((100, 100))
        g(x)  # eager: compiles nothing for jax.jit(g)
        t0 = time.perf_counter()
        y = jax.jit(g)(x)
        print(time.perf_counter() - t0)
        t0 = time.perf_counter()
        y = jax.jit(g)(x)
        print(time.perf_counter() - t0)
        fast = jax.jit(lambda v: v @ v)
        t0 = time.perf_counter()
        y = fast(x)
        print(time.perf_counter() - t0)
        for _ in range(3):
            t0 = time.perf_counter()
            y = fast(x)
            print(time.perf_counter() - t0)

        def bench(x):
            step = jax.jit(lambda v: v + 1)  # compiled anew on each run of bench: never warm
            t0 = time.perf_counter()
            y = step(x)
            return time.perf_counter() - t0

        def bench_module_function(x):
            step = jax.jit(g)  # cached on g: warm from the second run of the function
            t0 = time.perf_counter()
            y = step(x)
            return time.perf_counter() - t0

        def bench_again(x):
            step = jax.jit(lambda v: v + 1)  # run in a loop below: compiled again each time
            t0 = time.perf_counter()
            y = step(x)
            return time.perf_counter() - t0

        for _ in range(3):
            bench_again(x)
    """
    assert findings(lint, code) == [(16, "JAX601"), (24, "JAX601"), (36, "JAX601"), (42, "JAX601")]


def test_first_call_through_a_transform_of_a_fresh_jit_is_not_reported(lint):
    # B16 #8: `vmap(jf)(x)` and `grad(jf)(x)` trace `jf` at the call, and its first call
    # compiles, synchronously (measured on CPU: vmap 144 ms at the clock, 144 ms when done;
    # grad 1273 / 1273 ms). Running `vmap(g)` or `grad(g)` of the unjitted `g` before
    # does not warm `jax.jit(g)`'s cache. A second call, and a `jf` called directly
    # before, are warm.
    code = """
        import time
        import jax
        import jax.numpy as jnp

        def g(t):
            return jnp.sum(jnp.sin(t) ** 2)

        xs = jnp.linspace(0.0, 1.0, 1000)
        jax.vmap(g)(xs)
        jax.grad(g)(1.0)
        jg = jax.jit(g)
        t0 = time.perf_counter()
        y = jax.vmap(jg)(xs)
        print(time.perf_counter() - t0)
        t0 = time.perf_counter()
        y = jax.vmap(jg)(xs)
        print(time.perf_counter() - t0)

        def h(t):
            return jnp.sum(jnp.cos(t) * t)

        jh = jax.jit(h)
        t0 = time.perf_counter()
        d = jax.grad(jh)(xs)
        print(time.perf_counter() - t0)
        t0 = time.perf_counter()
        v, d = jax.value_and_grad(jax.jit(lambda t: h(t) ** 2))(xs)
        print(time.perf_counter() - t0)
        t0 = time.perf_counter()
        d = jax.grad(jh)(xs)
        print(time.perf_counter() - t0)
    """
    assert findings(lint, code) == [(18, "JAX601"), (32, "JAX601")]


def test_timeit_callables(lint):
    code = """
        import timeit
        import jax
        import jax.numpy as jnp
        @jax.jit
        def step(x):
            return x + 1
        def run():
            return step(jnp.ones(3))
        def run_blocked():
            return step(jnp.ones(3)).block_until_ready()
        timeit.timeit(lambda: step(1.0), number=2)
        timeit.repeat(run, number=2)
        timeit.timeit(run_blocked, number=2)
        timeit.timeit(lambda: jax.block_until_ready(step(1.0)), number=2)
        timeit.timeit("step(1.0)", globals=globals(), number=2)
    """
    assert findings(lint, code) == [(12, "JAX601"), (13, "JAX601")]


def test_not_in_traced_code(lint):
    code = """
        import time
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            t0 = time.time()
            y = jnp.sin(x)
            t1 = time.time()
            return y
    """
    assert findings(lint, code) == []


def test_throughput_timer_with_a_wait_each_round(lint):
    code = """
        import time
        import jax
        update = jax.jit(lambda s: s + 1)
        def train(state, steps):
            prev = time.time()
            for step in range(steps):
                state = update(state)
                if step % 10 == 0:
                    rate = 10 / (time.time() - prev)
                    prev = time.time()
                    print(float(state), rate)
    """
    assert findings(lint, code) == []


def test_unblocked_timer_measures_only_dispatch():
    """Under real JAX, a jitted call returns before its result is computed.

    A timer stopped right after the call therefore measures dispatch only. This is
    shown with `Array.is_ready()`, not with wall-clock thresholds, which flake on a
    loaded machine.
    """
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    f = jax.jit(lambda x: (x @ x) @ x)
    x = jnp.ones((1000, 1000))
    f(x).block_until_ready()  # compile outside the measurement
    not_ready = 0
    for _ in range(3):
        out = f(x)
        not_ready += not out.is_ready()  # the call returned; the work goes on
        out.block_until_ready()
        assert out.is_ready()
    assert not_ready >= 1


def test_the_jit_inside_the_timed_call_is_part_of_the_work(lint):
    # `jax.jit(f)` inside `jax.jit(f)(x)` is the work itself, not a call that may wait for it.
    code = """
        import time
        import jax

        def timed(f, x):
            t = time.time()
            y = jax.jit(f)(x)
            return time.time() - t
    """
    assert findings(lint, code) == [(8, "JAX601")]


def test_while_counting_rounds_does_not_wait(lint):
    # Only a test that reads what the loop computes waits for each round.
    code = """\
import time
import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    return x @ x


x = jnp.ones((64, 64))
i = 0
t0 = time.perf_counter()
while i < 3:
    x = step(x)
    i += 1
t1 = time.perf_counter()
"""
    assert findings(lint, code) == [(17, "JAX601")]


def test_sync_earlier_in_the_loop_body_waits_for_the_previous_round(lint):
    code = """\
import time
import jax
import jax.numpy as jnp


@jax.jit
def step(w):
    return w * 0.9, jnp.sum(w)


w = jnp.ones(3)
loss = jnp.zeros(())
t0 = time.perf_counter()
for i in range(100):
    print(i, loss)
    w, loss = step(w)
elapsed = time.perf_counter() - t0
"""
    assert findings(lint, code) == []


def test_fstring_formats_the_result_before_reading_the_clock(lint):
    code = """\
import time
import jax
import jax.numpy as jnp


@jax.jit
def step(w):
    return w * 0.9, jnp.sum(w)


w = jnp.ones(3)
t0 = time.time()
w, loss = step(w)
print(f"loss {loss:.3f} took {time.time() - t0:.2f}s")
print(f"took {time.time() - t0:.2f}s, loss {loss:.3f}")
"""
    # The first f-string formats `loss` (waiting for it) before the clock is read.
    assert findings(lint, code) == []


def test_a_clock_read_that_starts_the_next_timer_is_not_the_stop(lint):
    code = """\
import time
import jax.numpy as jnp

x = jnp.ones((100, 100))
t_total = time.time()
y = jnp.dot(x, x)
t_phase = time.time()
z = jnp.dot(y, y)
print("phase 2", time.time() - t_phase)
"""
    assert findings(lint, code) == [(9, "JAX601")]


def test_numpy_dot_of_a_jax_array_waits_only_when_the_receiver_is_numpy(lint):
    code = """
        import time
        import jax.numpy as jnp
        import numpy as np

        def run(W, V):
            for _ in range(10):
                V = jnp.tanh(V + W.dot(V))
            return V

        W_host = np.load("w.npy")
        start = time.time()
        V = run(W_host, jnp.ones(3))
        end = time.time()
    """
    assert findings(lint, code) == []
    # Given a JAX array, `W.dot(V)` is JAX's dot: nothing waits.
    assert findings(lint, code.replace('np.load("w.npy")', 'jnp.asarray(np.load("w.npy"))')) == [(14, "JAX601")]


def test_a_wait_for_something_else_does_not_sync_the_loop_before_the_work(lint):
    code = """
        import time
        import jax
        import jax.numpy as jnp

        step = jax.jit(lambda x: jnp.tanh(x @ x))
        x = jnp.ones((8, 8))
        start = time.perf_counter()
        for i in range(10):
            x = step(x)
            print(i)  # prints a Python int: waits for nothing
        x = step(x)
        elapsed = time.perf_counter() - start
    """
    assert findings(lint, code) == [(13, "JAX601")]
    # Printing the round's value waits each round: only one more step is pending.
    assert [f for f in findings(lint, code.replace("print(i)", "print(x)")) if f[1] == "JAX601"] == []


def test_small_eager_ops_of_stated_sizes_are_dispatch_bound(lint):
    # Each eager op finishes before the next dispatch returns: the clock misses the last
    # op in flight only (measured: an eager vmap of this polynomial, 34 ops on 3 x 500
    # values, 7.4 ms at the clock and 7.6 ms done; a loop of eager 3-element dots 0.0%).
    code = """
        import time
        import jax
        import jax.numpy as jnp
        import numpy as np

        def poly(x, coeffs):
            y = jnp.zeros_like(x)
            for k, c in enumerate(coeffs):
                y += c * x**k
            return y

        def convolve(x, w):
            return jnp.array([jnp.dot(x[i - 1:i + 2], w) for i in range(1, len(x) - 1)])

        x = jnp.linspace(-1.0, 1.0, 500)
        coeffs = np.random.normal(size=[3, 11])
        vpoly = jax.vmap(poly, in_axes=(None, 0), out_axes=0)
        t0 = time.time()
        vpoly(x, coeffs)
        elapsed = time.time() - t0
        v = jnp.arange(6, dtype=float)
        w = jnp.array([2.0, 3.0, 4.0])
        t0 = time.time()
        for _ in range(1000):
            out = convolve(v, w)
        elapsed = time.time() - t0
    """
    assert findings(lint, code) == []


def test_dispatch_bound_needs_stated_small_sizes_and_eager_ops(lint):
    # Still reported: a size the file does not state (a parameter of the script's
    # caller), arrays past the bounds (a 100 x 10,000 eager vmap read 24% short), a
    # jitted call (one dispatch: the whole work is missed), a single eager op
    # (one dispatch), a matmul operator and a loop of few rounds on 1,000 elements.
    code = """
        import time
        import jax
        import jax.numpy as jnp

        def poly(x, coeffs):
            y = jnp.zeros_like(x)
            for k, c in enumerate(coeffs):
                y += c * x**k
            return y

        def run(x, coeffs):
            t0 = time.time()
            jax.vmap(poly, in_axes=(None, 0))(x, coeffs)
            elapsed = time.time() - t0

        big = jnp.linspace(-1.0, 1.0, 10_000)
        coeffs = jnp.ones((100, 11))
        vpoly = jax.vmap(poly, in_axes=(None, 0))
        t0 = time.time()
        vpoly(big, coeffs)
        elapsed = time.time() - t0
        x = jnp.linspace(-1.0, 1.0, 500)
        fast = jax.jit(poly)
        fast(x, coeffs[0])
        t0 = time.time()
        fast(x, coeffs[0])
        elapsed = time.time() - t0
        t0 = time.time()
        y = jnp.sin(x)
        elapsed = time.time() - t0
        m = jnp.ones((30, 30))
        t0 = time.time()
        for _ in range(20):
            m = jnp.sin(m) @ m
        elapsed = time.time() - t0
        u = jnp.ones(1000)
        t0 = time.time()
        for _ in range(3):
            u = jnp.sin(u) * u
        elapsed = time.time() - t0
    """
    assert findings(lint, code) == [(15, "JAX601"), (22, "JAX601"), (28, "JAX601"), (31, "JAX601"),
                                    (36, "JAX601"), (41, "JAX601")]


def test_timeit_of_a_small_eager_call_is_dispatch_bound(tmp_path):
    # `%timeit` repeats the statement: eager ops on 6 elements each keep up with their
    # dispatch, and so does a binary search (`searchsorted`'s default method: at most one
    # comparison per pair of elements) and a jitted program whose ops together touch a few
    # dozen elements (measured: the jitted convolve, 0.02-1.7% short over 100-10,000
    # calls); `%time` runs it once, and `%timeit` of a jitted program on 100,000 elements,
    # or of a search by sorting, whose cost the tables do not bound (measured:
    # `searchsorted(method='sort')` on 100/50 values, 4-17% short over 100 calls), stays
    # reported.
    from tests.test_notebooks import _found, _notebook

    path = _notebook(
        tmp_path,
        "import jax\nimport jax.numpy as jnp\n"
        "def convolve(x, w):\n    return jnp.array([jnp.dot(x[i - 1:i + 2], w) for i in range(1, len(x) - 1)])\n"
        "x = jnp.arange(6, dtype=float)\nw = jnp.array([2.0, 3.0, 4.0])\n",
        "%timeit convolve(x, w)\n",
        "%time out = jnp.sin(x)\n",
        "jc = jax.jit(convolve)\njc(x, w)\n",
        "%timeit jc(x, w)\n",
        "%timeit jnp.searchsorted(x, w, method='sort')\n",
        "%timeit jnp.searchsorted(x, w)\n",
        "def double(v):\n    return v * 2.0\njd = jax.jit(double)\nbig = jnp.ones(100_000)\n",
        "%timeit jd(big)\n",
    )
    found, _ = _found(path)
    assert {(cell, code) for cell, _, code in found} == {(3, "JAX601"), (6, "JAX601"), (9, "JAX601")}


def test_a_callee_that_waits_makes_its_call_wait(lint):
    # `relax` stops on an array's truth value and returns a Python float: a call of it
    # (here through `scan`) waits. `relax_shape` tests only a shape and returns the
    # array, so its caller's timer misses the work.
    code = """
        import time
        import jax.numpy as jnp

        def relax(h, tol=1e-6):
            d, e_old = jnp.eye(h.shape[0]), 0.0
            for _ in range(50):
                e = jnp.sum(d * h)
                if abs(e - e_old) < tol:
                    break
                e_old, d = e, jnp.tanh(d @ h)
            return float(e)

        def relax_shape(h):
            d = jnp.eye(h.shape[0])
            for _ in range(50):
                if h.shape[0] > 100:
                    break
                d = jnp.tanh(d @ h)
            return d

        def scan_waiting(sizes):
            return jnp.array([relax(jnp.ones((n, n)) / n) for n in sizes])

        def scan_pending(sizes):
            return jnp.stack([relax_shape(jnp.ones((n, n)) / n) for n in sizes])

        t0 = time.time()
        out = scan_waiting([100, 200])
        print(time.time() - t0)
        t0 = time.time()
        out = scan_pending([100, 200])
        print(time.time() - t0)
    """
    assert findings(lint, code) == [(33, "JAX601")]


def test_a_new_static_value_compiles_a_new_program(lint):
    # jit caches its program on the function and the static values: a fresh
    # `jax.jit(g, static_argnums=...)`, or the same jitted function, called with a static
    # value no earlier call passed compiles, synchronously; with an earlier one it is warm.
    code = """
        import time
        import jax
        import jax.numpy as jnp

        def solve(u, steps):
            for _ in range(steps):
                u = jnp.sin(u) @ u
            return u

        @jax.jit
        def other(u):
            return u * 2

        solve_jit = jax.jit(solve, static_argnums=(1,))
        u0 = jnp.ones((10, 10))
        N = 10
        solve_jit(u0, N).block_until_ready()
        t0 = time.perf_counter()
        u = jax.jit(solve, static_argnums=(1,))(u0, N * 2)
        t1 = time.perf_counter()
        u = jax.jit(solve, static_argnums=(1,))(u0, N)
        t2 = time.perf_counter()
        u = solve_jit(u0, 30)
        t3 = time.perf_counter()
        u = solve_jit(u0, 30)
        t4 = time.perf_counter()
        print(t1 - t0, t2 - t1, t3 - t2, t4 - t3)
    """
    assert findings(lint, code) == [(23, "JAX601"), (27, "JAX601")]


def test_a_jitted_function_handed_on_may_have_compiled_any_static_value(lint):
    code = """
        import time
        import jax
        import jax.numpy as jnp

        def solve(u, steps):
            for _ in range(steps):
                u = jnp.sin(u) @ u
            return u

        def warm(fn):
            fn(jnp.ones((10, 10)), 20)

        solve_jit = jax.jit(solve, static_argnums=(1,))
        solve_jit(jnp.ones((10, 10)), 10)
        warm(solve_jit)
        t0 = time.perf_counter()
        u = jax.jit(solve, static_argnums=(1,))(jnp.ones((10, 10)), 20)
        t1 = time.perf_counter()
        print(t1 - t0)
    """
    assert findings(lint, code) == [(19, "JAX601")]


def test_eager_vmap_ops_on_mapped_scalars_are_dispatches(lint):
    # Each example of the mapped argument is a scalar, but the value is a batched array:
    # `x ** 2 + 1` dispatches two ops of 1000 elements per call, which end before the next
    # dispatch returns. A single call of one op, or an unsized batch, keeps the finding.
    code = """
        import time
        import jax
        import jax.numpy as jnp

        squares = jax.vmap(lambda x: x ** 2 + 1)
        xs = jnp.arange(1000)
        t0 = time.perf_counter()
        for _ in range(1000):
            out = squares(xs)
        t1 = time.perf_counter()

        def timed(batch):
            start = time.perf_counter()
            for _ in range(1000):
                out = squares(batch)
            return time.perf_counter() - start

        big = jnp.arange(100_000)
        t2 = time.perf_counter()
        for _ in range(1000):
            out = squares(big)
        t3 = time.perf_counter()
        print(t1 - t0, t3 - t2, timed(xs))
    """
    assert findings(lint, code) == [(17, "JAX601"), (23, "JAX601")]


def test_many_calls_of_a_function_on_small_matrices_are_dispatch_bound(lint):
    # A 2x2 eigenproblem per call, eager or as one jitted program (jit made in the timer
    # or before it): each call ends before the next is dispatched, so the clock misses one
    # call's microseconds. One call, a program on a 300x300 matrix, eager or jitted, and
    # 10 calls of a small program stay reported.
    code = """
        import time
        import jax
        import jax.numpy as jnp

        def freq(a, e):
            k = a * e * jnp.array([[1.0, -1.0], [-1.0, 1.0]])
            m = a * jnp.array([[2.0, 0.0], [0.0, 1.0]])
            return jnp.real(jnp.min(jnp.sqrt(jnp.linalg.eigvals(jnp.linalg.inv(m) * k))))

        def big(a, e):
            return jnp.linalg.inv(a * e * jnp.ones((300, 300)))

        @jax.jit
        def small(x):
            return jnp.sin(x) * 2.0 + 1.0

        es = jnp.linspace(1.0, 2.0, 1000)
        t0 = time.perf_counter()
        for e in es:
            out = freq(1.0, e)
        t1 = time.perf_counter()
        fast = jax.jit(freq)
        for e in es:
            out = fast(1.0, e)
        t2 = time.perf_counter()
        out = fast(1.0, es[0])
        t3 = time.perf_counter()
        fast_big = jax.jit(big)
        for e in es:
            out = fast_big(1.0, e)
        t4 = time.perf_counter()
        for e in es:
            out = big(1.0, e)
        t5 = time.perf_counter()
        xs = jnp.ones(8)
        for _ in range(1000):
            out = small(xs)
        t6 = time.perf_counter()
        for _ in range(10):
            out = small(xs)
        t7 = time.perf_counter()
        print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6)
    """
    assert findings(lint, code) == [(28, "JAX601"), (32, "JAX601"), (35, "JAX601"), (42, "JAX601")]
