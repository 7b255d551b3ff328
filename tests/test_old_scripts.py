"""Real user scripts that die on a removed JAX API run cleanly after
`jaxlint check --fix --unsafe-fixes`, under the installed jax on the CPU."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parent.parent

SCRIPTS = {
    "tutorial_2021.py": '''
        """A 2021 JAX tutorial script: pytrees, index updates, config, DeviceArray, xla_computation."""
        import jax
        import jax.numpy as jnp
        from jax.config import config
        from jax import tree_map

        config.update("jax_enable_x64", False)

        params = {"w": jnp.ones((2, 2)), "b": jnp.zeros(2)}
        grads = jax.tree_map(lambda p: 0.1 * p, params)
        params = jax.tree_multimap(lambda p, g: p - g, params, grads)
        leaves = jax.tree_leaves(params)
        halved = tree_map(lambda p: p / 2, params)

        x = jnp.arange(5.0)
        x = jax.ops.index_update(x, 0, 10.0)
        x = jax.ops.index_add(x, jax.ops.index[1:3], 1.0)
        assert jnp.alltrue(x >= 0)
        total = jnp.product(x[1:3])


        def describe(a: jnp.DeviceArray) -> str:
            return f"{a.shape}"


        hlo = jax.xla_computation(lambda v: v * 2)(1.0)
        assert float(x[0]) == 10.0 and float(total) == 6.0
        print(describe(x), float(total), len(leaves), hlo.as_hlo_text()[:9])
    ''',
    "mnist_stax_2020.py": '''
        """An early stax / optimizers training loop, with timing and in-place updates."""
        import time

        import jax
        import jax.numpy as jnp
        from jax import random
        from jax.experimental import optimizers, stax
        from jax.experimental.stax import Dense, Relu

        init_fn, predict = stax.serial(Dense(16), Relu, Dense(1))
        opt_init, opt_update, get_params = optimizers.adam(1e-2)

        key = random.PRNGKey(0)
        _, params = init_fn(key, (-1, 4))
        opt_state = opt_init(params)
        xs = random.normal(key, (32, 4))
        ys = jnp.zeros((32, 1))


        def loss(params, x, y):
            return jnp.mean((predict(params, x) - y) ** 2)


        for step in range(3):
            g = jax.jit(jax.grad(loss))(get_params(opt_state), xs, ys)
            opt_state = opt_update(step, g, opt_state)

        history = jnp.zeros(3)
        for i in range(3):
            history[i] = loss(get_params(opt_state), xs, ys)

        start = time.time()
        out = jnp.dot(xs, xs.T)
        elapsed = time.time() - start
        assert bool((history > 0).all()) and jnp.NINF < 0
        print(history, elapsed >= 0)
    ''',
    "index_ops_2021.py": '''
        """Index updates imported by name, the way the 2021 sharp-bits notebook did."""
        import jax.numpy as jnp
        from jax.ops import index, index_add, index_update

        x = jnp.zeros(5)
        x = index_update(x, index[1:3], 1.0)
        y = index_add(jnp.ones(5), 0, 2.0)
        every_other = index[::2]
        assert float(x[1]) == 1.0 and float(y[0]) == 3.0 and x[every_other].shape == (3,)
    ''',
    "backend_info_2023.py": '''
        """Device and backend helpers written for jax 0.4.1x."""
        import jax
        import jax.numpy as jnp
        from jax.lib import xla_bridge


        def platform() -> str:
            return xla_bridge.get_backend().platform


        def keys(key: jax.random.KeyArray, n: int):
            return jax.random.split(key, n)


        member = jnp.in1d(jnp.arange(6).reshape(2, 3), jnp.array([1, 4]))
        assert member.shape == (6,) and int(member.sum()) == 2
        print(platform(), jax.lib.xla_bridge.default_backend(), keys(jax.random.PRNGKey(0), 2).shape,
              jnp.trapz(jnp.ones(3)), jnp.round_(1.5), jnp.row_stack([jnp.ones(2), jnp.zeros(2)]).shape)
    ''',
}


def _python(path: Path):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                          cwd=path.parent, timeout=300)


def _jaxlint(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-m", "jaxlint", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_old_script_runs_after_fix(tmp_path, name):
    path = tmp_path / name
    path.write_text(textwrap.dedent(SCRIPTS[name]).lstrip())
    before = _python(path)
    assert before.returncode != 0, "the script should die on a removed API under the installed jax"
    assert any(err in before.stderr for err in ("AttributeError", "ImportError", "ModuleNotFoundError"))

    fixed = _jaxlint("check", "--no-cache", "--fix", "--unsafe-fixes", name, cwd=tmp_path)
    assert "Traceback" not in fixed.stderr, fixed.stderr
    after = _python(path)
    assert after.returncode == 0, f"{path.read_text()}\n{after.stderr[-2000:]}"

    # No removed-API finding is left, and a second --fix changes nothing.
    left = _jaxlint("check", "--no-cache", "--output-format", "concise", "--select", "JAX9,JAX303", name,
                    cwd=tmp_path)
    assert "JAX90" not in left.stdout.replace("JAX906", "") and "JAX303" not in left.stdout, left.stdout
    text = path.read_text()
    _jaxlint("check", "--no-cache", "--fix", "--unsafe-fixes", name, cwd=tmp_path)
    assert path.read_text() == text
