# source: https://github.com/brentyi/egoallo/issues/17
# expect: JAX207
# line: 50
# observed: jax 0.10.2 CPU: TypeError at line 50 "Shapes must be 1D sequences of concrete values of integer type, got (JitTracer(~int32[]),)": `max_iters` is a data field of the guidance-params pytree dataclass, so it is traced when the params reach the jitted `_optimize_vmapped`, and the solver sizes its cost history with it
# batch: 13
from __future__ import annotations

import dataclasses
from functools import partial

import jax
import jax.numpy as jnp


def pytree_dataclass(static=()):
    """jax_dataclasses.pytree_dataclass: fields are pytree leaves unless marked Static."""
    def wrap(cls):
        cls = dataclasses.dataclass(frozen=True)(cls)
        names = [f.name for f in dataclasses.fields(cls)]
        return jax.tree_util.register_dataclass(
            cls, data_fields=[n for n in names if n not in static], meta_fields=[n for n in names if n in static])
    return wrap


@pytree_dataclass(static=("hand_quats", "aria_wrists"))
class JaxGuidanceParams:
    prior_quat_weight: float = 1.0
    skate_weight: float = 30.0
    hand_quats: bool = True
    hand_quat_weight: float = 5.0
    aria_wrists: bool = True
    aria_wrist_pos_weight: float = 50.0
    # Optimization parameters.
    lambda_initial: float = 0.1
    max_iters: int = 20

    @staticmethod
    def defaults(phase):
        return {"inner": JaxGuidanceParams(hand_quats=False, max_iters=5),
                "post": JaxGuidanceParams(hand_quats=False, max_iters=20)}[phase]


@dataclasses.dataclass(frozen=True)
class TerminationConfig:
    max_iterations: int = 100
    cost_tolerance: float = 1e-5


def solve_least_squares(residual_fn, x0, lambda_initial, termination):
    cost_history = jnp.zeros(termination.max_iterations)

    def body(i, state):
        x, lam, history = state
        r = residual_fn(x)
        J = jax.jacfwd(residual_fn)(x)
        step = jnp.linalg.solve(J.T @ J + lam * jnp.eye(x.shape[0]), J.T @ r)
        return x - step, lam * 0.5, history.at[i].set(0.5 * jnp.sum(r**2))

    x, _, history = jax.lax.fori_loop(0, termination.max_iterations, body, (x0, lambda_initial, cost_history))
    return x, history


def _optimize(betas, body_rotmats, Ts_world_cpf, guidance_params):
    def residual_fn(delta):
        prior = guidance_params.prior_quat_weight * (body_rotmats + delta - body_rotmats)
        skate = guidance_params.skate_weight * (Ts_world_cpf[:, :3].mean(0).sum() + delta[:3] - betas[:3])
        return jnp.concatenate([prior, skate])

    return solve_least_squares(residual_fn, jnp.zeros_like(body_rotmats), guidance_params.lambda_initial,
                               TerminationConfig(max_iterations=guidance_params.max_iters))


@jax.jit
def _optimize_vmapped(Ts_world_cpf, betas, body_rotmats, guidance_params):
    return jax.vmap(partial(_optimize, Ts_world_cpf=Ts_world_cpf, guidance_params=guidance_params))(
        betas=betas, body_rotmats=body_rotmats)


def do_guidance_optimization(Ts_world_cpf, betas, body_rotmats, phase):
    guidance_params = JaxGuidanceParams.defaults(phase)
    return _optimize_vmapped(Ts_world_cpf, betas, body_rotmats, guidance_params)


Ts_world_cpf = jax.random.normal(jax.random.PRNGKey(0), (64, 7))
betas = jax.random.normal(jax.random.PRNGKey(1), (4, 16))
body_rotmats = jax.random.normal(jax.random.PRNGKey(2), (4, 63))
try:
    do_guidance_optimization(Ts_world_cpf, betas, body_rotmats, "inner")
except TypeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
