"""JAX502: a PRNG key drawn from in a loop without being split on each iteration."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.keyflow import key_findings_for
from jaxlint.rules.base import Rule


class PrngKeyReuseInLoop(Rule):
    code = "JAX502"
    name = "prng-key-reuse-in-loop"
    summary = "A PRNG key used in a loop without re-splitting gives the same numbers every iteration"
    confirm_kind = "prng"

    def fix(self, report):
        from jaxlint.fixes.prng import split_in_loop

        found = next((f for f in key_findings_for(self.model, self.code) if f.use.call is report.node), None)
        if found is None or found.through is not None or isinstance(found.loop, cst.Call):
            return None  # a per-leaf map needs a tree of keys, not a split in a loop
        return split_in_loop(self.model, found)

    def check(self):
        for found in key_findings_for(self.model, self.code):
            use = found.use
            if found.through is not None:
                yield self._stored_key(found)
                continue
            action = "draws the same random numbers" if use.kind == "sample" else \
                "makes the same subkeys"
            if isinstance(found.loop, cst.Call):
                mapper = self.source(found.loop.func)
                msg = (f"`{use.qualname}({use.key}, ...)` {action} for every leaf: `{mapper}` calls "
                       f"this function once per leaf, and `{use.key}` is the same each time; split "
                       f"one key per leaf (`keys = jax.random.split({use.key}, len(leaves))`, "
                       f"rebuilt with `jax.tree_util.tree_unflatten`) and map over the keys too")
                yield self.report(use.call, msg, use.function, key=use.key, loop="per-leaf map")
                continue
            loop = "comprehension" if not isinstance(found.loop, (cst.For, cst.While)) else (
                "`for` loop" if isinstance(found.loop, cst.For) else "`while` loop")
            msg = (f"`{use.qualname}({use.key}, ...)` {action} on every iteration of this "
                   f"{loop}: `{use.key}` is never rebound inside it; split it each iteration "
                   f"(`{use.key}, subkey = jax.random.split({use.key})`, then use `subkey`) or "
                   f"derive one key per step with `jax.random.fold_in({use.key}, i)`")
            yield self.report(use.call, msg, use.function, key=use.key, loop=loop)

    def _stored_key(self, found):
        draw, call = found.use, found.through
        loop = "comprehension" if not isinstance(found.loop, (cst.For, cst.While)) else (
            "`for` loop" if isinstance(found.loop, cst.For) else "`while` loop")
        action = "draws the same random numbers" if draw.kind == "sample" else "makes the same subkeys"
        msg = (f"`{draw.qualname}({draw.key}, ...)` {action} on every call: only `__init__` sets "
               f"`{draw.key}`, and `{call.qualname}(...)` runs on every iteration of the {loop} on line "
               f"{self.model.line_of(call.call)}; pass a new key to each call (split one in the loop), "
               f"or split the stored key and assign the new one back to `{draw.key}`")
        return self.report(draw.call, msg, draw.function, key=draw.key, loop=loop)
