"""Fix for JAX601: wait for the timed work before the clock stops.

`jax.block_until_ready(work)` returns its argument once it is computed, so it
can wrap the last JAX call inside the timed region whatever that call returns
(an array or a pytree). Unsafe: the timer now includes the computation (that is
the point), and a loop that dispatched ahead now waits on each round.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.model import FileModel
from jaxlint.fixes import build
from jaxlint.fixes.edits import UNSAFE, Fix


def block_fix(model: FileModel, work: cst.Call) -> Fix:
    name, edits = build.spell(model, "jax.block_until_ready", work)
    text = f"{name}({build.code(model, work)})"
    return Fix(UNSAFE, f"Wait for the result inside the timer: `{name}(...)` (the measured time "
                       f"then includes the computation)",
               tuple(edits) + (build.replace(model, work, text),))
