"""JAX503: a PRNG key used again after it was split."""

from __future__ import annotations

from jaxlint.engine.keyflow import key_findings_for, line_of
from jaxlint.rules.base import Rule


class PrngParentKeyReuse(Rule):
    code = "JAX503"
    name = "prng-parent-key-reuse"
    summary = "A PRNG key is used again after it was split"
    confirm_kind = "prng"

    def check(self):
        for found in key_findings_for(self.model, self.code):
            use = found.use
            where = line_of(self.model, found.previous.call)
            if found.carried is not None:
                loop = line_of(self.model, found.carried)
                again = "splits it again into the same subkeys, so the same random numbers"
                msg = (f"`{use.key}` was split on line {where} in the previous iteration of the loop on "
                       f"line {loop}, and carried over to this iteration, which {again}; split every key "
                       f"an iteration needs at once (`{use.key}, k1, k2 = jax.random.split({use.key}, 3)`) "
                       f"and use the carried `{use.key}` for nothing but the next split")
            elif use.kind == "split":
                msg = (f"`{use.key}` was already split on line {where}; splitting it again gives "
                       f"exactly the same keys, so the same random numbers; rebind it when "
                       f"splitting: `{use.key}, subkey = jax.random.split({use.key})`")
            else:
                msg = (f"`{use.key}` was split on line {where} and is spent, but "
                       f"`{use.qualname}` draws from it again (its numbers are not independent "
                       f"of its subkeys'; with jax_debug_key_reuse JAX raises KeyReuseError); "
                       f"rebind it when splitting: `{use.key}, subkey = "
                       f"jax.random.split({use.key})`, and draw from a subkey")
            yield self.report(use.call, msg, use.function, key=use.key, previous_line=where,
                              reuse="split-then-split" if use.kind == "split" else "split-then-draw")
