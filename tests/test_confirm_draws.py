"""Key reuse (JAX501-JAX503) from the program's own draws: a draw inside a helper belongs to
the line that called it, the draws of the program's jitted calls are recorded as they run
(never replayed), and draws of different sizes from one key are compared on their common
first numbers. Decoys: a loop whose helper reuses a key inside one call (the flagged line
itself gets a new key each time), and a jitted function each call of which gets its own key.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from confirm_table import verdicts_by_name
from jaxlint.finding import Finding

pytest.importorskip("jax")

P = str(Path(__file__).parent / "confirm_cases" / "draws.py")
MORE = str(Path(__file__).parent / "confirm_cases" / "draws_more.py")
PARAMS = str(Path(__file__).parent / "confirm_cases" / "draws_params.py")
COMPILED = str(Path(__file__).parent / "confirm_cases" / "draws_compiled.py")
RELATED = str(Path(__file__).parent / "confirm_cases" / "draws_related.py")


def line_of(text: str, path: str = P) -> int:
    return next(i for i, line in enumerate(Path(path).read_text().splitlines(), 1) if text in line)


def reuse(marker: str, function=None, previous=None, code="JAX501", draw=None, path=P,
          key=None) -> Finding:
    line = line_of(marker, path)
    confirm = {"kind": "prng"} if key is None else {"kind": "prng", "key": key}
    if previous is not None:
        confirm["previous_line"] = line_of(previous, path)
    if draw is not None:
        confirm["draw_line"] = line_of(draw, path)
    fline = line_of(f"def {function.rsplit('.', 1)[-1]}(", path) if function else None
    return Finding(path=path, line=line, col=1, end_line=line, end_col=1, code=code, message="",
                   function=function, function_line=fline, confirm=confirm)


CASES = {
    "sizes": reuse("REAL sizes", previous="data = jax.random.normal(key"),
    "helper": reuse("REAL helper", "pick_two", previous="a = shuffled_top(pos, key)"),
    "loop-helper": reuse("DECOY loop-helper", code="JAX502"),
    "jitted": reuse("REAL jitted", "noisy_pair", previous="a = x + jax.random.normal(key"),
    "jitted-calls": reuse("DECOY jitted-calls", "noisy", code="JAX502"),
    "hoisted": reuse("REAL hoisted", "fixed_noise_loss.body", code="JAX502"),
    "discarded": reuse("DECOY discarded", previous="w_big = jax.random.normal"),
    "times-zero": reuse("DECOY times zero", previous="population = jax.random.uniform",
                        code="JAX503"),
    "printed": reuse("REAL printed", previous="kept_a = jax.random.normal"),
    "default-key": reuse("REAL default key", "noisy_mean", code="JAX502",
                         draw="the draw the default key makes", path=MORE),
    "default-left-out": reuse("DECOY default left out", "Pairs.fresh_pair",
                              previous="the first draw from the key no call passes", path=MORE),
    "scan-helper": reuse("REAL scan helper", "walk.<locals>.step", code="JAX502", path=MORE),
    "scan-split": reuse("DECOY scan helper", "walk_split.<locals>.split_step", code="JAX502", path=MORE),
    "generator": reuse("DECOY generator", "stream", code="JAX502", path=MORE),
    "two-parameters": reuse("REAL two parameters", "create", previous="REAL two parameters",
                            path=PARAMS, key="rng"),
    "compiled": reuse("REAL compiled", "noisy_walk", code="JAX502", path=COMPILED, key="key"),
    "compiled-apart": reuse("DECOY compiled", "counted_walk", code="JAX502", path=COMPILED,
                            key="key"),
    "related": reuse("REAL related", previous="u = jax.random.uniform", path=RELATED),
    "randint": reuse("DECOY randint", previous="x = jax.random.normal(int_key", path=RELATED),
    "split-after": reuse("DECOY split after draw", previous="w = jax.random.normal(split_key",
                         path=RELATED),
    "two-numbers": reuse("TWO numbers", previous="first = jax.random.normal(two_key",
                         path=RELATED),
    "one-parameter": reuse("DECOY two parameters", "create_eval", previous="DECOY two parameters",
                           path=PARAMS, key="rng"),
}


@pytest.fixture(scope="module")
def got():
    return verdicts_by_name(CASES)


def test_draws_of_different_sizes_share_their_first_numbers(got):
    v = got["sizes"]
    assert v["verdict"] == "confirmed", v
    assert "identical values" in v["summary"], v
    first, second = v["record"]["values"].split(" / ")
    assert first.startswith(second.rstrip("]")), v  # (2,) is the first row of (100, 2)


def test_a_draw_inside_a_helper_belongs_to_the_calling_line(got):
    v = got["helper"]
    assert v["verdict"] == "confirmed", v
    assert "same shuffle" in v["summary"], v
    assert f"called from line {line_of('REAL helper')}" in v["evidence"], v


def test_reuse_inside_one_call_of_a_helper_is_not_the_loop_line(got):
    # twice() reuses its key, but line `out = twice(...)` gives each call a new key.
    assert got["loop-helper"]["verdict"] != "confirmed", got["loop-helper"]


def test_draws_of_the_programs_own_jitted_call_are_observed(got):
    v = got["jitted"]
    assert v["verdict"] == "confirmed", v
    # Inside the compiled call the numbers are not followed: the function runs without jit,
    # with the arguments of the program's own call, and returns both draws.
    assert "as called at line" in v["evidence"], v
    assert "both in the function's result" in v["evidence"], v


def test_identical_draws_that_never_meet_are_not_confirmed(got):
    # The same key drew twice, but the numbers meet only in a value nobody reads (a timing
    # demo), or only in a product by 0: the program never uses them together.
    for name in ("discarded", "times-zero"):
        v = got[name]
        assert v["verdict"] == "not reproduced", (name, v)
        assert "never reached one result together" in v["summary"], (name, v)
    assert "in a value the program never read" in got["discarded"]["evidence"]


def test_identical_draws_read_together_are_confirmed(got):
    v = got["printed"]
    assert v["verdict"] == "confirmed", v
    assert "read together at line" in v["evidence"], v


def test_a_jitted_function_called_with_a_new_key_each_time(got):
    v = got["jitted-calls"]
    assert v["verdict"] == "not reproduced", v
    assert "at import" in v["evidence"], v


def test_a_loop_draw_the_run_made_once_is_not_called_not_reproduced(got):
    # Under grad the constant-key draw is hoisted out of the fori_loop: the program's run drew
    # once, so nothing shows whether the iterations share it; never "not reproduced".
    v = got["hoisted"]
    assert v["verdict"] != "not reproduced", v


def test_a_default_key_every_call_leaves_out_draws_the_same_each_pass(got):
    # Flagged on the `def` line, drawn on the next: each call draws the same numbers (the
    # default kept), but each mean is printed on its own, as an evaluation key reused each
    # epoch on purpose would be: no one value holds both, so not reproduced.
    v = got["default-key"]
    assert v["verdict"] == "not reproduced", v
    draw = line_of("the draw the default key makes", MORE)
    assert f"normal at line {draw} (called from line" in v["evidence"], v
    assert "drawn at import" in v["evidence"], v


def test_a_default_no_call_passes_keeps_its_default(got):
    # No call passes `key`: the program never reaches the two draws from it. A key made up
    # for it (as the recipe once did) would draw twice there and "confirm" the reuse.
    v = got["default-left-out"]
    assert v["verdict"] != "confirmed", v
    assert "key left to its default" in v["shapes"] + v["evidence"], v


def test_a_helper_drawing_from_a_scan_bodys_closed_over_key(got):
    # Each step calls the helper at the flagged line; the helper draws at one line, the same
    # numbers each step, and they all reach walk's result.
    v = got["scan-helper"]
    assert v["verdict"] == "confirmed", v
    helper, flagged = line_of("return x + 0.1 * jax.random.normal", MORE), line_of("REAL scan helper", MORE)
    assert f"normal at line {helper} (called from line {flagged})" in v["evidence"], v
    assert got["scan-split"]["verdict"] != "confirmed", got["scan-split"]


def test_a_generator_the_program_stepped_is_judged_on_its_own_draws(got):
    # Calling `stream` makes a generator and draws nothing: the program's two `next` calls
    # drew the same numbers, never read, so not reproduced (not "could not run").
    v = got["generator"]
    assert v["verdict"] == "not reproduced", v
    assert "drawn at import" in v["evidence"], v


def test_one_key_passed_to_two_parameters_that_each_draw(got):
    # `init(rng, rng)`: the worker sees the one key object in both parameters, and each draw
    # made through another of them (the callee's running statement names it).
    v = got["two-parameters"]
    assert v["verdict"] == "confirmed", v
    assert "through parameter `params_rng`" in v["evidence"], v
    assert "through parameter `dropout_rng`" in v["evidence"], v


def test_two_draws_through_one_of_the_two_parameters_are_not_the_calls_reuse(got):
    # The same call with deterministic=True: dropout_rng draws nothing, and the two same-key
    # draws under the flagged line both come through params_rng (init's own reuse, reported
    # in init). Two draws with one key under the line would "confirm" it; the line's two
    # parameters never both drew.
    v = got["one-parameter"]
    assert v["verdict"] == "not reproduced", v
    assert "came through `params_rng`" in v["summary"], v


def test_draws_inside_a_compiled_call_are_followed_to_the_outputs_they_reach(got):
    # add_noise is jitted: each call's draw is recorded by its callback as the computation
    # runs, and labels the call's outputs that depend on it in the jaxpr. x carries every
    # step's noise, and the program prints it.
    v = got["compiled"]
    assert v["verdict"] == "confirmed", v
    assert "read together at line" in v["evidence"], v


def test_a_compiled_draw_that_never_reaches_the_read_output_is_not_confirmed(got):
    # step_and_noise draws the same noise each step but returns it apart from y: only the
    # `noise` output depends on the draw, and the program never reads it. Labelling every
    # output of the jitted call with its draws would "confirm" it through the printed y.
    v = got["compiled-apart"]
    assert v["verdict"] == "not reproduced", v


def test_two_samplers_reading_the_same_bits_give_related_numbers(got):
    # uniform and normal of one key: each normal is an increasing function of its uniform.
    v = got["related"]
    assert v["verdict"] == "confirmed", v
    assert "increasing function of each other" in v["summary"], v


def test_a_sampler_that_splits_first_shares_the_key_but_not_the_numbers(got):
    # normal then randint of one key: randint splits the key before it draws, so its numbers
    # are not a function of normal's, however the two meet (they are printed together).
    v = got["randint"]
    assert v["verdict"] == "not reproduced", v
    assert "the numbers do not repeat" in v["summary"], v
    assert "not a monotone function of each other (checked on 8 numbers)" in v["evidence"], v
    assert "randint splits its key before it draws" in v["evidence"], v


def test_two_numbers_each_rest_on_the_sampler_family(got):
    # Two numbers are always ordered alike one way or the other: the order shows nothing, and
    # the verdict says the family (checked against jax below) is what relates them.
    v = got["two-numbers"]
    assert v["verdict"] == "confirmed", v
    assert "read the same bits; 2 numbers in common, too few to show an order" in v["summary"], v


def test_a_key_split_after_it_drew_gives_children_with_new_numbers(got):
    # The key drew, then was split, and a child drew numbers that meet the first draw's:
    # the children are other keys, and their draw repeats nothing (checked).
    v = got["split-after"]
    assert v["verdict"] == "not reproduced", v
    assert "the key was split after it drew" in v["evidence"], v
    assert "1 draw from the children, none repeats the numbers of normal" in v["evidence"], v


def test_the_sampler_families_are_jaxs():
    """identical_draws._FAMILY against jax: the "bits" samplers of one key order their numbers
    alike (or reversed), and randint / choice are a function of neither."""
    import jax
    import numpy as np

    from jaxlint.confirm.verdicts.identical_draws import _FAMILY, _monotone

    key, shape = jax.random.key(11), (8,)
    made = {"bits": jax.random.bits(key, shape), "uniform": jax.random.uniform(key, shape),
            "normal": jax.random.normal(key, shape),
            "bernoulli": jax.random.bernoulli(key, 0.5, shape),
            "truncated_normal": jax.random.truncated_normal(key, -2.0, 2.0, shape),
            "exponential": jax.random.exponential(key, shape),
            "gumbel": jax.random.gumbel(key, shape), "laplace": jax.random.laplace(key, shape),
            "logistic": jax.random.logistic(key, shape), "cauchy": jax.random.cauchy(key, shape),
            "rademacher": jax.random.rademacher(key, shape),
            "randint": jax.random.randint(key, shape, 0, 1000),
            "choice": jax.random.choice(key, 1000, shape)}
    assert set(made) == set(_FAMILY)
    as_list = {name: np.asarray(x, dtype=float).tolist() for name, x in made.items()}
    for name, numbers in as_list.items():
        related = _monotone(as_list["uniform"], numbers) is not None
        assert related == (_FAMILY[name] == "bits"), name
    assert as_list["choice"] == as_list["randint"]
