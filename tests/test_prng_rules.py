"""JAX501-JAX503: PRNG key reuse. Findings on real parses; the claims under real JAX."""

from __future__ import annotations

import re
import textwrap

import pytest

from jaxlint.pages import code_blocks, page_text, section

PRNG = ["JAX5"]


def findings(lint, code):
    return lint(textwrap.dedent(code), select=PRNG)


def test_draw_twice_is_flagged_at_second_draw(lint):
    code = """
        from jax import random
        key = random.PRNGKey(0)
        a = random.normal(key, (3,))
        b = random.uniform(key, (3,))
        c = a * b
    """
    assert findings(lint, code) == [(5, "JAX501")]


def test_draws_whose_numbers_never_meet_are_separate_demos(lint):
    code = """
        from jax import random
        key = random.PRNGKey(0)
        a = random.normal(key, (3,))
        print(a)
        b = random.uniform(key, (3,))
        print(b)
        shape_only = random.normal(key, (2, 5))
        w = random.normal(key, shape_only.shape)
        box = {}
        box["w"] = w
    """
    assert findings(lint, code) == []


def test_numbers_meet_in_a_container_a_return_or_the_next_step(lint):
    code = """
        from jax import random
        def batch(key):
            out = {}
            out["x"] = random.normal(key, (3,))
            out["y"] = random.normal(key, (3,))
            return out
        def walk(key, x):
            x = x + random.normal(key, (3,))
            x = x + random.normal(key, (3,))
            return x
        def pair(key):
            a = random.normal(key, (3,))
            b = random.uniform(key, (3,))
            return a, b
    """
    assert findings(lint, code) == [(6, "JAX501"), (10, "JAX501"), (14, "JAX501")]


def test_resolves_aliases_and_keyword_key(lint):
    code = """
        import jax.random as jr
        def f(rng):
            a = jr.bernoulli(key=rng, p=0.5)
            return jr.categorical(rng, a)
    """
    assert findings(lint, code) == [(5, "JAX501")]


def test_one_draw_per_branch_is_fine(lint):
    code = """
        import jax
        def f(key, c):
            if c:
                x = jax.random.normal(key)
            else:
                x = jax.random.uniform(key)
            return x
        def g(key, c):
            if c:
                return jax.random.normal(key)
            return jax.random.uniform(key)
        def h(key, c):
            return jax.random.normal(key) if c else jax.random.uniform(key)
    """
    assert findings(lint, code) == []


def test_draw_on_one_path_then_again_is_flagged(lint):
    code = """
        import jax
        def f(key, c):
            x = 0.0
            if c:
                x = jax.random.normal(key)
            return x + jax.random.normal(key)
    """
    assert findings(lint, code) == [(7, "JAX501")]


def test_rebinding_by_split_is_fine(lint):
    code = """
        import jax
        key = jax.random.PRNGKey(0)
        key, sub = jax.random.split(key)
        a = jax.random.normal(sub)
        key, sub = jax.random.split(key)
        b = jax.random.normal(sub)
        keys = jax.random.split(key, 3)
        c = [jax.random.normal(keys[0]), jax.random.normal(keys[1])]
        d = jax.random.normal(jax.random.fold_in(key, 1)) + jax.random.normal(jax.random.fold_in(key, 2))
    """
    assert findings(lint, code) == []


def test_parent_key_after_split(lint):
    code = """
        import jax
        def f(key):
            k1, k2 = jax.random.split(key)
            a = jax.random.normal(key)
            return a + jax.random.normal(k1)
        def g(key):
            k1, k2 = jax.random.split(key)
            k3, k4 = jax.random.split(key)
            return k1, k3
    """
    assert findings(lint, code) == [(5, "JAX503"), (9, "JAX503")]


def test_draw_then_split_is_reuse(lint):
    code = """
        import jax
        def f(key):
            x = jax.random.normal(key)
            key, sub = jax.random.split(key)
            return x, sub
    """
    assert findings(lint, code) == [(5, "JAX501")]


def test_loops(lint):
    code = """
        import jax
        def bad_for(key, n):
            return [jax.random.normal(key) for _ in range(n)] + [
                jax.random.uniform(key) for _ in range(n)]
        def bad_while(key, n):
            i, total = 0, 0.0
            while i < n:
                total = total + jax.random.uniform(key)
                i += 1
            return total
        def bad_split(key, n):
            out = []
            for i in range(n):
                k1, k2 = jax.random.split(key)
                out.append(k1)
            return out
        def good(key, n):
            out = []
            for i in range(n):
                key, sub = jax.random.split(key)
                out.append(jax.random.normal(sub))
            return out
        def good_loop_variable(key, n):
            return [jax.random.normal(k) for k in jax.random.split(key, n)]
        def good_fold_in(key, n):
            return [jax.random.normal(jax.random.fold_in(key, i)) for i in range(n)]
        def good_leaves_loop(key, n):
            for i in range(n):
                if i == 2:
                    return jax.random.normal(key)
        def good_one_input_per_case(key, shapes):
            for shape in shapes:  # each case checks its own input and drops it
                x = jax.random.normal(key, shape)
                assert (jax.numpy.sort(x) == jax.numpy.sort(x[::-1])).all()
    """
    assert findings(lint, code) == [(4, "JAX502"), (5, "JAX501"), (9, "JAX502"), (15, "JAX502")]


def test_global_keys_are_not_tracked(lint):
    # A call can rebind a global key behind our back.
    code = """
        import jax
        key = jax.random.PRNGKey(0)
        def next_key():
            global key
            key, sub = jax.random.split(key)
            return sub
        a = jax.random.normal(key)
        next_key()
        b = jax.random.normal(key)
    """
    assert findings(lint, code) == []


def test_traced_code_too(lint):
    code = """
        import jax
        @jax.jit
        def noisy(x, key):
            return x + jax.random.normal(key, x.shape) * jax.random.normal(key, x.shape)
    """
    assert findings(lint, code) == [(5, "JAX501")]


# --- the claims, under real JAX -------------------------------------------------

def test_same_key_gives_same_numbers():
    jax = pytest.importorskip("jax")
    key = jax.random.key(0)
    a = jax.random.normal(key, (4,))
    b = jax.random.normal(key, (4,))
    assert (a == b).all()
    # normal and uniform from one key are functions of the same bits.
    u = jax.random.uniform(key, (4,))
    assert jax.numpy.allclose(jax.scipy.special.ndtri(u), a, atol=1e-3)


def test_loop_without_split_repeats_and_split_twice_repeats():
    jax = pytest.importorskip("jax")
    key = jax.random.key(0)
    draws = [jax.random.normal(key, (3,)) for _ in range(3)]
    assert all((d == draws[0]).all() for d in draws)
    first = jax.random.key_data(jax.random.split(key))
    second = jax.random.key_data(jax.random.split(key))
    assert (first == second).all()
    fresh = []
    for _ in range(3):
        key, sub = jax.random.split(key)
        fresh.append(jax.random.normal(sub, (3,)))
    assert not (fresh[0] == fresh[1]).all()


def _blocks(code, name):
    return code_blocks(page_text(code)).get(name, [])


def _not_reported_blocks(code):
    """Use-instead blocks the page introduces with "Not reported": reuse that is real
    for JAX's checker, but whose numbers never meet (separate demos, shape-only draws)."""
    text = section(page_text(code), "Use instead")
    return [m.group(1) for m in re.finditer(r"Not reported[^`]*```python\n(.*?)```", text, re.S)]


@pytest.mark.parametrize("code", ["JAX501", "JAX502", "JAX503"])
def test_page_examples_are_key_reuse_for_jax_itself(code):
    """JAX's own key-reuse checker rejects every bad example and accepts every good one,
    except those the page says are reuse whose numbers never meet, a key rebuilt from
    one seed on each call (a new key object: the block asserts the repeat itself), and
    one key that vmap hands to every mapped call (JAX's checker does not see the batched
    draws repeat, checked jax 0.10.2: the block asserts the identical rows itself)."""
    jax = pytest.importorskip("jax")
    from jax.errors import KeyReuseError

    for block in _blocks(code, "Example"):
        if "new key from the same seed" in block or "one key for every mapped call" in block:
            exec(compile(block, f"{code}:example", "exec"), {"__name__": "prng_example"})
            continue  # its own assert shows the repeat, which JAX's checker cannot see
        with jax.debug_key_reuse(True), pytest.raises(KeyReuseError):
            exec(compile(block, f"{code}:example", "exec"), {"__name__": "prng_example"})
    unmet = _not_reported_blocks(code)
    for block in _blocks(code, "Use instead"):
        if block in unmet:
            with jax.debug_key_reuse(True), pytest.raises(KeyReuseError):
                exec(compile(block, f"{code}:unmet", "exec"), {"__name__": "prng_unmet"})
            continue
        with jax.debug_key_reuse(True):
            exec(compile(block, f"{code}:good", "exec"), {"__name__": "prng_good"})


def test_init_and_dropout_data_and_noise_split_after_draw_meet(lint):
    code = """
        from jax import random
        import jax.numpy as jnp
        def init(key, n):
            return random.normal(key, (n, n))
        def forward(params, x, key):
            mask = random.bernoulli(key, 0.9, x.shape)
            return (params @ x) * mask
        def train(key, x):
            params = init(key, 3)
            return forward(params, x, key)
        key = random.PRNGKey(0)
        X = random.normal(key, (100, 3))
        y = X @ jnp.ones(3) + 0.1 * random.normal(key, (100,))
        key, sub = random.split(key)
        w = random.normal(sub, (3,))
        for _ in range(10):
            w = w - 0.1 * jnp.mean((X @ w - y)[:, None] * X, axis=0)
    """
    assert findings(lint, code) == [(11, "JAX501"), (14, "JAX501"), (15, "JAX501")]


def test_a_comment_that_says_the_repeat_is_meant_silences_it(lint):
    code = """
        from jax import random
        def init(key):
            return random.normal(key, (3, 3))
        key = random.PRNGKey(0)
        a = init(key)
        b = init(key)  # the same key: both models start identical
        diff = a - b
    """
    assert findings(lint, code) == []


def test_numbers_meet_in_a_closure(lint):
    code = """
        from jax import random
        import jax.numpy as jnp
        def mmd(x, rng, n):
            w = random.normal(rng, (3, n))
            b = random.uniform(rng, (n,))
            def features(v):
                return jnp.cos(v @ w + b)
            return features(x).mean()
    """
    assert findings(lint, code) == [(6, "JAX501")]


def test_an_assert_and_a_shadowing_parameter_are_not_meetings(lint):
    code = """
        import jax
        from jax import random
        key = random.PRNGKey(0)
        a = random.normal(key, (3,))
        b = random.normal(key, (3,))  # demo: equal by construction
        assert (a == b).all()
        x = random.uniform(key, (5,))
        h = lambda x: x - x
        jac = jax.jacobian(h)(random.uniform(key, (4,)))
    """
    assert findings(lint, code) == []


def test_numbers_meet_inside_a_check_and_through_default_arguments(lint):
    code = """
        from jax import random
        import jax.numpy as jnp
        def test_log_prob(key, n):
            k1, k2 = random.split(key)
            dist = make(random.uniform(k1, (n,)))
            y = random.uniform(key, (n,))
            assert close(dist.log_prob(y), 0.0)
        KEY = random.PRNGKey(0)
        MAT = random.normal(KEY, (4, 3))
        XS = random.normal(KEY, (2, 3))
        def apply(v, mat=MAT):
            return jnp.dot(mat, v)
        def batched(xs=XS):
            return [apply(v) for v in xs]
    """
    assert findings(lint, code) == [(7, "JAX503"), (11, "JAX501")]


def test_a_draw_run_again_word_for_word_is_the_same_value(lint):
    """`x = uniform(key, s)` again recomputes the `x` the name held: only the real reuse
    (the noise drawn from the key that made `x`) is reported."""
    code = """
        import jax
        def test_sample(key, fit):
            x = jax.random.uniform(key, (10, 2))
            y = x.sum(1) + 0.1 * jax.random.normal(key, (10,))
            sampled = fit(x, y)
            x = jax.random.uniform(key, (10, 2))
            return sampled(x)
    """
    assert findings(lint, code) == [(5, "JAX501")]


def test_pairs_stay_aligned_but_one_array_twice_is_reuse(lint):
    code = """
        import jax
        def batch(key, x, y, n):
            xb = jax.random.choice(key, x, (n,), replace=False)
            yb = jax.random.choice(key, y, (n,), replace=False)
            return xb, yb
        def twice(key, x, n):
            a = jax.random.choice(key, x, (n,))
            b = jax.random.choice(key, x, (n,))
            return a - b
    """
    assert findings(lint, code) == [(9, "JAX501")]


def test_a_gathered_list_meets_where_it_is_used_not_where_it_is_checked(lint):
    used = """
        import jax
        import jax.numpy as jnp
        key = jax.random.key(0)
        noise = []
        for step in range(3):
            noise.append(jax.random.normal(key, (2,)))
        for eps in noise:
            assert eps.shape == (2,)
        print(jnp.stack(noise))
    """
    assert findings(lint, used) == [(7, "JAX502")]
    unused = used.split("        for eps")[0]
    assert findings(lint, unused) == [(7, "JAX502")]  # gathered and never read: as if used whole
    checked = """
        import jax
        import jax.numpy as jnp
        key = jax.random.key(0)
        losses = []
        for tiles in (2, 4, 8):
            x = jax.random.normal(key, (8,))
            losses.append(jnp.sum(x.reshape(tiles, -1)))
        base = losses[0]
        for tiles, loss in zip((2, 4, 8), losses):
            assert jnp.allclose(loss, base), tiles
    """
    assert findings(lint, checked) == []


def test_keys_for_a_call_that_draws_nothing_are_not_reused_numbers(lint):
    code = """
        import functools
        import jax
        import jax.numpy as jnp

        def model(x, key, deterministic=False):
            if deterministic:
                return x
            return jnp.where(jax.random.bernoulli(key, 0.9, x.shape), x / 0.9, 0.0)

        key = jax.random.key(0)
        total = 0.0
        for batch in range(3):
            out = jax.vmap(functools.partial(model, deterministic=FLAG))(jnp.ones((4, 3)), jax.random.split(key, 4))
            total = total + out.sum()
    """
    assert findings(lint, code.replace("FLAG", "True")) == []
    assert findings(lint, code.replace("FLAG", "False")) == [(14, "JAX502")]


def test_one_random_map_for_two_arrays_but_not_the_same_noise(lint):
    code = """
        import jax
        import jax.numpy as jnp

        def features(key, x, rank):
            w = jax.random.normal(key, (x.shape[1], rank))
            return jnp.cos(x @ w)

        def dropout(key, x, rate):
            keep = jax.random.bernoulli(key, 1 - rate, x.shape)
            return jnp.where(keep, x / (1 - rate), 0.0)

        def init(shape, key):
            return jax.random.normal(key, shape)

        key = jax.random.key(0)
        x, y = jnp.ones((5, 3)), jnp.zeros((5, 3))
        kernel = features(key, x, 16) @ features(key, y, 16).T
        both = dropout(key, x, 0.5) + dropout(key, y, 0.5)
        w = init((3, 3), key) @ init((3, 4), key)
    """
    assert findings(lint, code) == [(19, "JAX501"), (20, "JAX501")]


def test_a_stored_key_reached_through_a_transform_at_the_call_and_a_parameter(lint):
    """`jax.jit(model.__call__)(x)` in a loop, `model` a parameter whose one call site passes
    a `DropoutMLP(...)`: its `__call__` draws from a key only `__init__` sets. A new object
    per iteration holds a new key."""
    code = """
        import jax
        import jax.numpy as jnp
        class DropoutMLP:
            def __init__(self, key):
                wkey, self.dropout_key = jax.random.split(key)
                self.weight = jax.random.normal(wkey, (4, 2))
            def __call__(self, x):
                keep = jax.random.bernoulli(self.dropout_key, 0.5, x.shape)
                return jnp.where(keep, x / 0.5, 0.0) @ self.weight
        def train(model, xs):
            for x in xs:
                print(jax.jit(model.__call__)(x))
        def fresh(key, xs):
            for x in xs:
                key, sub = jax.random.split(key)
                print(jax.jit(DropoutMLP(sub).__call__)(x))
        train(DropoutMLP(jax.random.PRNGKey(0)), [jnp.ones(4)] * 3)
        fresh(jax.random.PRNGKey(1), [jnp.ones(4)] * 3)
    """
    assert findings(lint, code) == [(9, "JAX502")]


def test_a_draw_that_does_not_depend_on_its_key_spends_nothing(lint):
    code = """
        import jax
        import jax.numpy as jnp
        key = jax.random.key(0)
        population = jax.random.uniform(key, (4, 2)) * ZERO
        key, subkey = jax.random.split(key)
        step = population + jax.random.normal(subkey, (4, 2))
        first = jax.random.randint(key, (), 0, MAXVAL)
        swap = jnp.where(first, 1.0, -1.0) * jax.random.normal(key, ())
    """
    assert findings(lint, code.replace("ZERO", "0.").replace("MAXVAL", "1")) == []
    assert findings(lint, code.replace("ZERO", "1.").replace("MAXVAL", "2")) == [(6, "JAX501"), (9, "JAX501")]


_FACTORY = '''
import jax
from jax import random


class Rational:
    def __init__(self, a, b):
        self.a, self.b = a, b

    @classmethod
    def create_random(cls):
        key = random.PRNGKey(1703)
        a = random.uniform(key, (7,))
        b = random.uniform(key, (8,))
        return cls(a, b)

    @classmethod
    def create_ones(cls):
        return cls(jax.numpy.ones(7), jax.numpy.ones(8))


model = Rational.create_ones()
# model = Rational.create_random()
'''


def _codes(path):
    from jaxlint.config import Settings
    from jaxlint.linter import lint_file

    return [(f.line, f.code) for f in lint_file(str(path), Settings(select=PRNG)).findings]


def _project(root, files):
    """A project folder: a `pyproject.toml` and the given files; the first file's path."""
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root / next(iter(files))


def test_reuse_in_a_function_nothing_runs_is_not_reported(tmp_path):
    pytest.importorskip("jax")
    namespace = {}
    exec(compile(_FACTORY, "factory", "exec"), namespace)
    made = namespace["Rational"].create_random()
    assert (made.b[:7] == made.a).all()  # the reuse is real, were the factory called
    # Its only call commented out, a copy of it in another script: dead.
    script = _project(tmp_path / "a", {"experiment.py": _FACTORY, "experiment_3d.py": _FACTORY})
    assert _codes(script) == []
    called = _project(tmp_path / "b", {"called.py": _FACTORY.replace("# model = ", "model = ")})
    assert _codes(called) == [(14, "JAX501")]
    # A module of a package whose function no other file names is dead too; one that a
    # script, a test or the docs name may be called from there.
    library = _project(tmp_path / "c", {"pkg/coefs.py": _FACTORY, "pkg/__init__.py": ""})
    assert _codes(library) == []
    for other in ("train.py", "README.md"):
        text = "from pkg.coefs import Rational\nRational.create_random()\n"
        library = _project(tmp_path / other.replace(".", "_"), {"pkg/coefs.py": _FACTORY, other: text})
        assert _codes(library) == [(14, "JAX501")]


CARRIED_SCAN = """
    import jax
    import jax.numpy as jnp


    def simulate(key, x0):
        def step(carry, _):
            key, x = carry
            key, noise_key = jax.random.split(key)
            x = x + 0.1 * jax.random.normal(noise_key, x.shape)
            {second}
            x = x + 0.01 * jax.random.normal(extra_key, x.shape)
            return (key, x), x

        return jax.lax.scan(step, (key, x0), None, length=4)[1]


    def walk(key, x0):
        def body(i, val):
            key, x = val
            key, sub = jax.random.split(key)
            {third}
            x = x + jax.random.normal(sub, x.shape) + jax.random.uniform(other, x.shape)
            return key, x

        return jax.lax.fori_loop(0, 4, body, (key, x0))


    path = simulate(jax.random.key(0), jnp.zeros(3))
    end = walk(jax.random.key(1), jnp.zeros(3))
"""


def test_key_carried_by_a_lax_loop_body_and_split_again(lint):
    """A scan / fori_loop body returning its key in the carry after a second split of it:
    the next step's split makes that subkey again (`noise_key` of step t + 1 is
    `extra_key` of step t). A draw from the carried key itself repeats no numbers."""
    bad = CARRIED_SCAN.format(second="_, extra_key = jax.random.split(key)",
                              third="_, other = jax.random.split(key)")
    assert findings(lint, bad) == [(9, "JAX503"), (21, "JAX503")]
    fine = CARRIED_SCAN.format(second="key, extra_key = jax.random.split(key)",
                               third="other = key")
    assert findings(lint, fine) == []


def test_key_carried_by_a_lax_loop_body_really_repeats(lint):
    """Under JAX: step t's `extra_key` is step t + 1's `noise_key`, so the draws repeat."""
    jax = pytest.importorskip("jax")

    key = jax.random.key(0)
    extras, noises = [], []
    for _ in range(3):
        key, noise_key = jax.random.split(key)
        _, extra_key = jax.random.split(key)
        noises.append(jax.random.normal(noise_key, (3,)))
        extras.append(jax.random.normal(extra_key, (3,)))
    assert all((extras[t] == noises[t + 1]).all() for t in range(2))


def test_nested_def_mapped_per_leaf_draws_the_same_numbers_per_leaf(lint):
    code = """
        import jax
        import jax.numpy as jnp


        def perturb(params, key):
            def one(p):
                return p + jax.random.normal(key, p.shape)
            return jax.tree_util.tree_map(one, params)


        def perturb_each(params, keys):
            def one(p, k):
                return p + jax.random.normal(k, p.shape)
            return jax.tree_util.tree_map(one, params, keys)


        def called_too(params, key):
            def one(p):
                return p + jax.random.normal(key, p.shape)
            return jax.tree_util.tree_map(one, params), one(params["w"])


        params = {"w": jnp.ones((2, 3)), "b": jnp.ones(3)}
        a = perturb(params, jax.random.key(0))
        b = perturb_each(params, {"w": jax.random.key(1), "b": jax.random.key(2)})
        c = called_too(params, jax.random.key(3))
    """
    assert findings(lint, code) == [(8, "JAX502")]


def test_test_checks_that_read_no_numbers(lint):
    # Two draws from one key meet in the step, but the checks read only what the results
    # are (isinstance, a string among a dict's keys, not None): no number is looked at.
    # A check of a value (`loss < loss1`) reads the numbers.
    code = """
        import jax
        from helpers import train_step

        def test_returns_metrics():
            key = jax.random.PRNGKey(0)
            x = jax.random.normal(key, (32, 10))
            y = jax.random.normal(key, (32, 1))
            loss, metrics = train_step({"x": x, "y": y})
            assert isinstance(metrics, dict)
            assert "loss" in metrics and loss is not None

        def test_reduces_loss():
            key = jax.random.PRNGKey(0)
            x = jax.random.normal(key, (32, 10))
            y = jax.random.normal(key, (32, 1))
            loss1, _ = train_step({"x": x, "y": y})
            loss, metrics = train_step({"x": x, "y": y})
            assert loss < loss1
    """
    assert [f for f in findings(lint, code) if f[1] == "JAX501"] == [(16, "JAX501")]


def test_test_helpers_expected_raises_and_repeat_checks_read_no_numbers(lint):
    # Draws from one key that meet only in what a shape-only helper reads, in a call the
    # test expects to raise, in a check that compares one call run twice, or in a check of
    # finiteness (finite draws give a finite result whether or not they are independent):
    # no correlation of theirs decides a check. A helper reading the numbers (a print), a
    # comparison with another computation, a stub that says nothing, or a second run on
    # changed inputs does.
    code = """
        import jax
        import jax.numpy as jnp
        import pytest
        from model import attend, attend_ref

        def check_shape(x, expected, label="out"):
            assert x.shape == expected, f"{label}: {x.shape}"

        def check_finite(x):
            assert jnp.all(jnp.isfinite(x))

        def show(x):
            print(x.mean())

        def stub(x):
            pass

        def test_static():
            key = jax.random.key(0)
            x = jax.random.normal(key, (4, 8))
            ctx = jax.random.normal(key, (6, 8))
            out = attend(x, ctx)
            check_shape(out, (4, 8))
            out1 = attend(x, ctx)
            out2 = attend(x, ctx)
            assert jnp.allclose(out1, out2)
            with pytest.raises(ValueError):
                attend(x, [ctx])

        def test_finite():
            key = jax.random.key(0)
            x = jax.random.normal(key, (4, 8))
            ctx = jax.random.normal(key, (6, 8))
            check_finite(attend(x, ctx))

        def test_positive():
            key = jax.random.key(0)
            x = jax.random.normal(key, (4, 8))
            ctx = jax.random.normal(key, (6, 8))
            show(attend(x, ctx))

        def test_reference():
            key = jax.random.key(0)
            x = jax.random.normal(key, (4, 8))
            ctx = jax.random.normal(key, (6, 8))
            out1 = attend(x, ctx)
            out2 = attend_ref(x, ctx)
            assert jnp.allclose(out1, out2)

        def test_stub():
            key = jax.random.key(0)
            x = jax.random.normal(key, (4, 8))
            ctx = jax.random.normal(key, (6, 8))
            stub(attend(x, ctx))

        def test_changed_input():
            key = jax.random.key(0)
            x = jax.random.normal(key, (4, 8))
            ctx = jax.random.normal(key, (6, 8))
            out1 = attend(x, ctx)
            x = x + 1
            out2 = attend(x, ctx)
            assert jnp.allclose(out1, out2)
    """
    assert findings(lint, code) == [(40, "JAX501"), (46, "JAX501"), (54, "JAX501"), (60, "JAX501")]


def test_checks_of_finiteness_read_no_correlation(lint):
    # `assert jnp.all(jnp.isfinite(out))`, `assertFalse(jnp.any(jnp.isnan(out)))` and
    # `not jnp.isnan(out).any()` ask whether the code overflows on ordinary inputs; the
    # same check joined with a comparison of the numbers reads them.
    code = """
        import unittest
        import jax
        import jax.numpy as jnp
        from model import attend, attend_ref

        KEY = jax.random.key(0)

        def test_all_finite():
            x = jax.random.normal(KEY, (4, 8))
            ctx = jax.random.normal(KEY, (6, 8))
            out = attend(x, ctx)
            assert jnp.all(jnp.isfinite(out))
            assert not jnp.isnan(out).any()

        class AttendTest(unittest.TestCase):
            def test_no_nan(self):
                x = jax.random.normal(KEY, (4, 8))
                ctx = jax.random.normal(KEY, (6, 8))
                self.assertFalse(jnp.any(jnp.isnan(attend(x, ctx))))

        def test_finite_and_close():
            x = jax.random.normal(KEY, (4, 8))
            ctx = jax.random.normal(KEY, (6, 8))
            out = attend(x, ctx)
            assert jnp.all(jnp.isfinite(out)) and jnp.allclose(out, attend_ref(x, ctx))
    """
    assert findings(lint, code) == [(24, "JAX501")]


def test_checks_of_fixed_bounds_read_no_correlation(lint):
    # `assert (lp <= 0).all()`, `jnp.all((a >= 0) & (a < n))`, `0.0 <= p <= 1.0`: a bound the
    # code keeps holds for any inputs, as finiteness does; a bound joined with a comparison
    # of two results (allclose) reads the numbers, and a bound on a value from the draws
    # (`x < y`) is a comparison of numbers, not a fixed bound.
    code = """
        import jax
        import jax.numpy as jnp
        from agent import log_prob, loss_fn

        KEY = jax.random.key(0)

        def test_actions_in_range():
            logits = jax.random.normal(KEY, (8, 4))
            actions = jax.random.categorical(KEY, logits)
            n_actions = 4
            assert jnp.all((actions >= 0) & (actions < n_actions))

        def test_log_probs():
            logits = jax.random.normal(KEY, (8, 4))
            acts = jax.random.randint(KEY, (8,), 0, 4)
            lp = log_prob(logits, acts)
            assert (lp <= 0).all()
            assert 0.0 <= float(jnp.exp(lp).max()) <= 1.0

        def test_bound_and_close():
            x = jax.random.normal(KEY, (8, 4))
            y = jax.random.normal(KEY, (8, 4))
            out = loss_fn(x, y)
            assert out < 10.0 and jnp.allclose(out, loss_fn(y, x))

        def test_compared_draws():
            x = jax.random.normal(KEY, (8,))
            y = jax.random.uniform(KEY, (8,))
            assert jnp.all(x < y + 3.0)
    """
    assert findings(lint, code) == [(23, "JAX501"), (29, "JAX501")]


def test_values_made_from_draws_whose_numbers_are_never_read(lint):
    # Whether the numbers of a value are ever read: a loss function that closes over two
    # draws, its gradients and each leaf of them (checked only for finiteness, in the test
    # or through a helper that gets the draws as *args), a value read only for shapes in a
    # list of them, a dict's keys: none reads the draws' numbers. Printing the gradients,
    # or a helper that returns what it makes of its *args, reads them.
    code = """
        import jax
        import jax.numpy as jnp
        from model import apply

        KEY = jax.random.key(0)

        def check_finite(x):
            assert jnp.all(jnp.isfinite(x))

        def check_gradients(params, *inputs):
            grads = jax.grad(lambda p: jnp.mean(apply(p, *inputs) ** 2))(params)
            for leaf in jax.tree_util.tree_leaves(grads):
                check_finite(leaf)

        def run(params, *inputs):
            return apply(params, *inputs)

        def test_grads_finite():
            x = jax.random.normal(KEY, (4, 8))
            ctx = jax.random.normal(KEY, (6, 8))

            def loss(p):
                return jnp.mean(apply(p, x, ctx) ** 2)

            grads = jax.grad(loss)(jnp.eye(8))
            for leaf in jax.tree_util.tree_leaves(grads):
                check_finite(leaf)
            check_gradients(jnp.eye(8), x, ctx)
            outs, metrics = apply(jnp.eye(8), x, ctx)
            assert [o.shape for o in outs] == [(4, 8)]
            assert set(metrics.keys()) == {"loss"}

        def test_grads_printed():
            x = jax.random.normal(KEY, (4, 8))
            ctx = jax.random.normal(KEY, (6, 8))

            def loss(p):
                return jnp.mean(apply(p, x, ctx) ** 2)

            grads = jax.grad(loss)(jnp.eye(8))
            for leaf in jax.tree_util.tree_leaves(grads):
                print(leaf)

        def test_helper_returns():
            x = jax.random.normal(KEY, (4, 8))
            ctx = jax.random.normal(KEY, (6, 8))
            print(run(jnp.eye(8), x, ctx))
    """
    assert findings(lint, code) == [(36, "JAX501"), (47, "JAX501")]


def test_identities_and_constants_read_no_correlation(lint):
    # A check that compares one computation with itself (f on the inputs and on the inputs
    # permuted; one result against its parts) or a value with a constant array holds or
    # fails whatever numbers the draws hold. f against another function, f on other inputs
    # (the draws swapped), arithmetic on the draws themselves, or an ordering (a loss that
    # decreases) reads them.
    code = """
        import jax
        import jax.numpy as jnp
        import numpy as np
        from model import f, f_ref, loss_parts

        KEY = jax.random.key(0)

        def test_identities():
            x = jax.random.normal(KEY, (6, 4))
            perm = jax.random.permutation(KEY, 6)
            assert jnp.allclose(f(x)[perm], f(x[perm]))
            total, parts = loss_parts(x, perm)
            np.testing.assert_allclose(total, parts["a"] + 0.5 * parts["b"])
            w = jax.nn.softmax(x[perm], axis=-1)
            assert jnp.allclose(w.sum(axis=-1), jnp.ones_like(w.sum(axis=-1)))

        def test_reference():
            x = jax.random.normal(KEY, (6, 4))
            ctx = jax.random.normal(KEY, (6, 4))
            assert jnp.allclose(f(x, ctx), f_ref(x, ctx))

        def test_other_inputs():
            x = jax.random.normal(KEY, (6, 4))
            ctx = jax.random.normal(KEY, (6, 4))
            assert jnp.allclose(f(x, ctx), f(ctx, x))

        def test_draws_themselves():
            x = jax.random.normal(KEY, (6, 4))
            ctx = jax.random.normal(KEY, (6, 4))
            assert jnp.allclose(f(x, ctx), x @ ctx.T)

        def test_decreases():
            x = jax.random.normal(KEY, (6, 4))
            y = jax.random.normal(KEY, (6, 1))
            loss0 = f(x, y)
            for _ in range(3):
                loss = f(x, y)
            assert loss < loss0
    """
    assert findings(lint, code) == [(20, "JAX501"), (25, "JAX501"), (30, "JAX501"), (35, "JAX501")]


def test_a_comment_that_says_a_repeat_is_always_the_same_marks_it_meant(lint):
    # A lesson in what not to do: the comment says the second draw repeats the first.
    # Only the same draw written again; a different draw from the key stays reported.
    code = """
        import jax
        key = jax.random.key(0)
        numbers1 = jax.random.normal(key, (3,))  # This will always be the same...
        numbers2 = jax.random.normal(key, (3,))  # ...as this. Oops!
        print(numbers1, numbers2)
        other = jax.random.uniform(key, (3,))  # always the same key
        print(numbers1 + other)
    """
    assert findings(lint, code) == [(7, "JAX501")]


def test_a_comment_at_the_first_of_a_repeated_draw_says_it_is_meant(lint):
    code = """
        import jax
        key = jax.random.key(0)
        # Reusing the same key gives the same numbers
        a = jax.random.normal(key, (3,))
        b = jax.random.normal(key, (3,))
        print(jax.numpy.allclose(a, b))
        c = jax.random.uniform(key, (3,))
        print(a + c)
    """
    assert findings(lint, code) == [(8, "JAX501")]


def test_draws_multiplied_by_a_zero_every_call_passes_spend_nothing(lint):
    helper = """
        import jax
        import jax.numpy as jnp
        def noisy(x, eps, key):
            return x + eps * jnp.sqrt(0.1) * jax.random.normal(key, x.shape)
        def run(x, key, eps):
            x = noisy(x, eps, key)
            key, _ = jax.random.split(key)
            return x, key
    """
    zero = helper + "        out = run(jnp.ones(3), jax.random.key(0), 0.0)\n"
    assert findings(lint, zero) == []
    # One call with another eps: the noise matters there, and the split repeats the draw.
    mixed = zero + "        more = run(jnp.ones(3), jax.random.key(1), 0.5)\n"
    assert [c for _, c in findings(lint, mixed)] == ["JAX501"]
    # The function passed on as a value: a call the file does not show may pass anything.
    escaped = zero + "        fns = [run]\n"
    assert [c for _, c in findings(lint, escaped)] == ["JAX501"]


def test_a_split_whose_keys_only_draw_wiped_out_noise_repeats_nothing(lint):
    code = """
        import jax
        def push(x, key):
            noise = 0.0
            x = x + jax.random.uniform(key, x.shape)
            sub, _ = jax.random.split(key)
            for t in range(3):
                sub, _ = jax.random.split(sub)
                x = x + noise * jax.random.normal(sub, x.shape)
            return x
    """
    assert findings(lint, code) == []
    # A child key that draws numbers that matter: the split after the draw is reported.
    used = code.replace("x = x + noise * jax.random.normal(sub, x.shape)",
                        "x = x + noise * jax.random.normal(sub, x.shape) + jax.random.normal(sub, x.shape)")
    assert [c for _, c in findings(lint, used)][:1] == ["JAX501"]
    # `noise` bound twice: not known to be zero.
    rebound = code.replace("noise = 0.0", "noise = 0.0\n            if x.ndim:\n                noise = 1.0")
    assert [c for _, c in findings(lint, rebound)][:1] == ["JAX501"]
