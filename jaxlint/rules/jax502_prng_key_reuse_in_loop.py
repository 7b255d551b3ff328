"""JAX502: a PRNG key drawn from in a loop without being split on each iteration."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.keyflow import key_findings_for, key_uses
from jaxlint.jax_api import KEY_CONSTRUCTORS, LAX_LOOP_BODIES, RANDOM_SAMPLERS, RANDOM_SPLITTERS
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
        yield from self._fixed_seed_in_loop_body()

    def _fixed_seed_in_loop_body(self):
        """`random.normal(random.PRNGKey(0), ...)` in a `lax.fori_loop` / `scan` /
        `while_loop` body: the key is rebuilt from the same seed on every iteration."""
        model = self.model
        draws = [(c, model.qualname(c.func), None) for c in model.nodes(cst.Call)
                 if model.qualname(c.func) in RANDOM_SAMPLERS or model.qualname(c.func) in RANDOM_SPLITTERS]
        # A call of a function of this file that draws from the key passed to it spends
        # that key as a draw does: `fun.apply(params, state, rng, x)` in a scan body.
        draws += [(use.call, use.qualname, use) for use in key_uses(model)
                  if use.qualname not in RANDOM_SAMPLERS and use.qualname not in RANDOM_SPLITTERS]
        for call, q, helper in draws:
            func = model.function_of(call)
            loop = next((c.transforms[0] for c in func.contexts.values()
                         if c.via == "body" and c.transforms and c.transforms[0] in LAX_LOOP_BODIES),
                        None) if func is not None else None
            if loop is None:
                continue
            made = self._fixed_key(call, func, helper)
            if made is None:
                continue
            if helper is not None:
                action = "draws the same random numbers" if helper.kind == "sample" else "makes the same subkeys"
            else:
                action = "draws the same random numbers" if q in RANDOM_SAMPLERS else "makes the same subkeys"
            if isinstance(made, cst.Name):
                why = (f"`{made.value}` is closed over, the same key each time the body "
                       f"`{func.name}` runs")
            else:
                seed = self.source(made.args[0].value) if made.args else "the default"
                why = f"its key is rebuilt from the fixed seed `{seed}` each time the body `{func.name}` runs"
            yield self.report(call, (
                f"`{self.source(call.func)}(...)` {action} on every iteration of `{loop}`: {why}; "
                f"pass a key in through the loop carry and split it each iteration, or fold in the "
                f"iteration index (`jax.random.fold_in(key, i)`)"), func, key=self.source(made), loop=loop)

    def _fixed_key(self, call: cst.Call, func, helper=None):
        """What makes `call`'s key the same on every run of the body `func`: a key of the
        enclosing function it closes over, or a `PRNGKey(seed)` call inside it whose seed
        does not depend on `func`'s parameters. For a `helper` use (a call of a function
        that draws from the key passed to it), only a closed-over key."""
        model = self.model
        if helper is not None:
            arg = next((a.value for a in call.args if self.source(a.value) == helper.key), None)
        else:
            arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "key"),
                       call.args[0].value if call.args and call.args[0].keyword is None and not call.args[0].star
                       else None)
        if isinstance(arg, cst.Name) and arg.value not in func.all_params \
                and arg.value not in func.scope.bindings and func.enclosing is not None \
                and arg.value in func.enclosing.scope.bindings:
            return arg  # a key of the enclosing function, closed over by the body
        if helper is not None:
            return None
        if isinstance(arg, cst.Name):
            values = model.assigned_values(arg)
            if values is None or len(values) != 1 or model.function_of(values[0]) is not func:
                return None
            arg = values[0]
        if not isinstance(arg, cst.Call) or model.qualname(arg.func) not in KEY_CONSTRUCTORS:
            return None
        # A literal seed, drawn from directly: a split of `PRNGKey(0)` in a body is often a
        # dummy key for shapes, and a configured seed (`config.eval_seed`) a deliberately
        # repeated evaluation.
        if model.qualname(call.func) not in RANDOM_SAMPLERS or not arg.args \
                or not isinstance(arg.args[0].value, cst.Integer):
            return None
        params = set(func.all_params)
        local = set(func.scope.bindings)
        for node in _names_in(arg):
            if node.value in params or node.value in local:
                return None
        return arg

    def _stored_key(self, found):
        draw, call = found.use, found.through
        loop = "comprehension" if not isinstance(found.loop, (cst.For, cst.While)) else (
            "`for` loop" if isinstance(found.loop, cst.For) else "`while` loop")
        action = "draws the same random numbers" if draw.kind == "sample" else "makes the same subkeys"
        if draw.default_of is not None:
            why = (f"`{draw.key}` defaults to `{self.source(draw.seed)}`, one key that Python builds "
                   f"once, when the `def` runs")
            fix = f"pass a new key as `{draw.default_of}` to each call (split one in the loop)"
            msg = (f"`{draw.qualname}({draw.key}, ...)` {action} on every call that leaves "
                   f"`{draw.default_of}` out: {why}, and `{call.qualname}(...)` leaves it out on every "
                   f"iteration of the {loop} on line {self.model.line_of(call.call)}; {fix}")
            return self.report(draw.seed, msg, draw.function, key=draw.key, loop=loop,
                               draw_line=self.model.line_of(draw.call))
        if draw.unread_key is not None:
            why = (f"`{draw.function.name}` builds it from the literal seed on each call and never "
                   f"reads the key `{draw.unread_key}` its callers pass")
            fix = f"draw from `{draw.unread_key}` (split it) instead of `{self.source(draw.seed)}`"
        elif draw.seed is not None and self.model.function_of(draw.seed) is not draw.function:
            why = (f"`{draw.key}` is the one key made on line {self.model.line_of(draw.seed)} "
                   f"(`{self.source(draw.seed)}`) and nothing rebinds it")
            fix = "split a new key in the loop and pass it to each call as an argument"
        elif draw.seed is not None:
            why = (f"`{draw.key}` is rebuilt from the same seed on each call "
                   f"(`{self.source(draw.seed)}`)")
            fix = (f"pass a new key to each call (split one in the loop) instead of building it "
                   f"from `{self.source(draw.seed.args[0].value)}`")
        else:
            why = f"only `__init__` sets `{draw.key}`"
            fix = (f"pass a new key to each call (split one in the loop), or split the stored key "
                   f"and assign the new one back to `{draw.key}`")
        if draw.qualname in RANDOM_SAMPLERS | RANDOM_SPLITTERS:
            drawn = f"`{draw.qualname}({draw.key}, ...)`"
        elif any(a.keyword is not None and a.keyword.value == "rngs" for a in draw.call.args):
            drawn = f"`{draw.qualname}(..., rngs=...)` with `{draw.key}`"
        else:  # a function of the file that draws from the key it is given
            drawn = f"`{self.source(draw.call.func)}(...)`, given `{draw.key}`,"
        msg = (f"{drawn} {action} on every call: {why}, and "
               f"`{call.qualname}(...)` runs on every iteration of the {loop} on line "
               f"{self.model.line_of(call.call)}; {fix}")
        return self.report(draw.call, msg, draw.function, key=draw.key, loop=loop)


def _names_in(node: cst.CSTNode):
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            yield n
        if isinstance(n, cst.Attribute):
            stack.append(n.value)
            continue
        stack.extend(n.children)
