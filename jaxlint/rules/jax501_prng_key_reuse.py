"""JAX501: one PRNG key drawn from twice (or drawn from, then split)."""

from __future__ import annotations

from jaxlint.engine.keyflow import KeyEvent, key_findings_for, line_of
from jaxlint.rules.base import Rule


class PrngKeyReuse(Rule):
    code = "JAX501"
    name = "prng-key-reuse"
    summary = "The same PRNG key is used for two draws: both give the same random numbers"
    confirm_kind = "prng"

    def fix(self, report):
        from jaxlint.fixes.prng import split_before_first

        found = next((f for f in key_findings_for(self.model, self.code) if f.use.call is report.node), None)
        if found is None or found.previous.call is found.use.call:
            return None  # one call, two parameters: which one gets a subkey is the user's choice
        return split_before_first(self.model, found)

    def check(self):
        from jaxlint.rules._mapped_keys import mapped_keys

        for found in mapped_keys(self.model):
            name = self.source(found.arg)
            what = "draws from it" if found.kind is KeyEvent.SAMPLE else "splits it"
            if found.replicated is None:
                how = f"is passed unmapped (in_axes None) to the vmapped `{found.label}`"
            else:
                how = (f"is one key copied along the mapped axis (line {line_of(self.model, found.replicated)}) "
                       f"and passed to the vmapped `{found.label}`")
            yield self.report(found.call, (
                f"`{name}` {how}, which {what} (parameter `{found.param}`): every mapped call gets the "
                f"same key, so every row of the result has the same random numbers (the same noise or "
                f"dropout mask for each example); pass one key per row, mapped on axis 0 "
                f"(`jax.random.split(key, n)`)"), self.model.function_of(found.call),
                key=name, reuse="mapped")
        for found in key_findings_for(self.model, self.code):
            use = found.use
            where = line_of(self.model, found.previous.call)
            if found.previous.call is use.call:
                msg = (f"`{use.key}` is passed to two parameters of `{use.qualname}` that each draw "
                       f"from it (or split it), so both get the same random bits (the same key always "
                       f"gives the same numbers): the draws are correlated, not independent; split "
                       f"it first (`k1, k2 = jax.random.split({use.key})`) and pass one subkey to each")
            elif use.kind == "sample" and "." in use.key:
                # A key an object holds: split into local subkeys (storing a new key back on the
                # object inside a traced function would leak a tracer).
                msg = (f"`{use.key}` already drew random numbers on line {where}, so "
                       f"`{use.qualname}` gets the same random bits again (the same key "
                       f"always gives the same numbers); split it into subkeys first: "
                       f"`k1, k2 = jax.random.split({use.key})`, and draw once from each")
            elif use.kind == "sample":
                sub = "subkey" if use.key != "subkey" and "[" not in use.key else "k"
                msg = (f"`{use.key}` already drew random numbers on line {where}, so "
                       f"`{use.qualname}` gets the same random bits again (the same key "
                       f"always gives the same numbers); split first: "
                       f"`{use.key}, {sub} = jax.random.split({use.key})` and draw from `{sub}`")
            else:
                msg = (f"`{use.key}` already drew random numbers on line {where}; splitting it "
                       f"afterwards reuses a spent key (with jax_debug_key_reuse JAX raises "
                       f"KeyReuseError); split before the first draw and draw only from subkeys")
            yield self.report(use.call, msg, use.function, key=use.key, previous_line=where,
                              reuse="draw-then-split" if use.kind == "split" else "draw-twice")
