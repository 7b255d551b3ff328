"""The verdict modules, one per kind of evidence, and which rule each confirms.

    trace_error      an exception at the flagged line while tracing (JAX2xx, JAX301, JAX404,
                     JAX406, JAX8xx)
    trace_time       code that runs once per trace: a print (JAX101), an unrolled loop (JAX407)
    stale_value      a value fixed at trace time (JAX103-JAX105), an update dropped (JAX302)
    leak             a tracer stored outside its trace (JAX102)
    compile_count    compiles of the flagged call while the program runs (JAX402-JAX405)
    timing           wall-clock measurements (JAX401, JAX601, JAX602)
    identical_draws  two draws with one key (JAX501-JAX503)
    numerics         NaN gradients, 32-bit results, clamped indices, wrapped integers (JAX70x)
    removed_api      what the installed jax has (JAX9xx)
    noqa             a `# noqa` that suppresses nothing (JAX100)

A module exports `confirm(job) -> Verdict` and its `Evidence` dataclass. To add a recipe: add a
module (or a function in one), map its kind or rule code below, and add a case to
tests/test_confirm_verdicts.py.
"""

from __future__ import annotations

from typing import Callable, Optional

from jaxlint.confirm.verdicts import (compile_count, identical_draws, leak, noqa, numerics,
                                      removed_api, stale_value, timing, trace_error, trace_time)
from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED,
                                           CompileBudget, Job, Unrunnable, Verdict, first_line,
                                           verdict)

Recipe = Callable[[Job], Verdict]

# The rule's own confirm kind (Rule.confirm_kind) -> recipe.
BY_KIND: dict[str, Recipe] = {
    "trace-error": trace_error.confirm,
    "print": trace_time.confirm_print,
    "stale-global": stale_value.confirm_stale_global,
    "iterator": stale_value.confirm_iterator,
    "leak": leak.confirm,
    "recompile": compile_count.confirm,
    "overhead": timing.confirm_overhead,
    "prng": identical_draws.confirm,
    "timing": timing.confirm_timing,
    "removed-api": removed_api.confirm,
}

# Rules whose findings carry no confirm kind: their recipe by code.
BY_CODE: dict[str, Recipe] = {
    "JAX100": noqa.confirm,
    "JAX302": stale_value.confirm_discarded_update,
    "JAX402": compile_count.confirm_fresh_callable,
    "JAX407": trace_time.confirm_unrolled,
    "JAX602": timing.confirm_host_sync,
    "JAX701": numerics.confirm_nan_gradient,
    "JAX702": numerics.confirm_float64,
    "JAX703": numerics.confirm_clamped_index,
    "JAX704": numerics.confirm_wrapped_integer,
    "JAX906": removed_api.confirm_deprecated,
}


def recipe_for(code: str, kind: Optional[str]) -> Optional[Recipe]:
    return BY_CODE.get(code) or BY_KIND.get(kind or "")


__all__ = ["BY_CODE", "BY_KIND", "COULD_NOT_RUN", "CONFIRMED", "NOT_REPRODUCED", "CompileBudget",
           "Job", "Unrunnable", "Verdict", "first_line", "import_verdict", "recipe_for", "verdict"]
