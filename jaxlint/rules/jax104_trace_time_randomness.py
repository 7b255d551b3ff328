"""JAX104: NumPy / `random` draws and clock reads in jitted code are baked in at trace time."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.sizes import stated_value
from jaxlint.rules._impurity import outlives_trace, trace_time_function, where
from jaxlint.rules.base import Rule

#: Modules whose functions draw a new random number on every Python call.
_RANDOM_MODULES = ("numpy.random", "random")
#: Functions of those modules that do not draw: seeding and generator constructors.
_NOT_DRAWS = frozenset({
    "seed", "get_state", "set_state", "getstate", "setstate", "default_rng", "RandomState",
    "Generator", "SeedSequence", "BitGenerator", "PCG64", "PCG64DXSM", "MT19937", "Philox",
    "SFC64", "Random", "SystemRandom",
})
#: Generator constructors: methods of what they return draw random numbers.
_GENERATORS = frozenset({"numpy.random.default_rng", "numpy.random.RandomState",
                         "numpy.random.Generator", "random.Random"})
#: Clock and entropy reads.
_CLOCKS = frozenset({
    "time.time", "time.time_ns", "time.perf_counter", "time.perf_counter_ns", "time.monotonic",
    "time.monotonic_ns", "time.process_time", "time.process_time_ns",
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today",
    "datetime.date.today", "uuid.uuid1", "uuid.uuid4", "os.urandom",
})


class TraceTimeRandomness(Rule):
    code = "JAX104"
    traced_code = True
    name = "trace-time-randomness"
    summary = "NumPy / `random` draws and clock reads in jitted code are baked in at trace time"
    # Confirmed like an iterator: the jitted result differs from a disable_jit run.
    confirm_kind = "iterator"

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            kind = self._kind(call)
            if kind is None:
                continue
            # Only cached traces freeze the value; vmap and grad rerun the Python code.
            func = trace_time_function(model, call, "cached")
            if func is None or self._runs_once(func) or kind == "clock" and self._seeds_host_clock(call, func) \
                    or kind == "random" and self._reseeded(call, func):
                continue
            name = " ".join(model.module.code_for_node(call.func).split())
            if kind == "clock":
                msg = (f"`{name}()` {where(func)} is read once, at trace time: every call returns "
                       f"the same baked-in value; read the clock outside the jitted function and "
                       f"pass it in as an argument")
            else:
                msg = (f"`{name}()` {where(func)} draws once, at trace time: every call reuses the "
                       f"same baked-in numbers; use jax.random with a key argument "
                       f"(jax.random.split it per call)")
            yield self.report(call, msg, func, baked=name)

    def _runs_once(self, func) -> bool:
        """`data_fn = jax.jit(gen_data)` called at one place, outside any loop: its one
        trace draws once, which is what an eager call would do too."""
        model = self.model
        names = set()
        for context in func.contexts.values():
            if context.via == "decorator":
                names.add(func.name)
                continue
            bound = model.parent(context.origin) if context.origin is not None else None
            if context.via != "wrapper" or not isinstance(bound, cst.Assign) or len(bound.targets) != 1 \
                    or not isinstance(bound.targets[0].target, cst.Name) or model.function_of(bound) is not None:
                return False
            names.add(bound.targets[0].target.value)
        uses = [n for n in model.nodes(cst.Name) if n.value in names
                and not isinstance(model.parent(n), (cst.AssignTarget, cst.FunctionDef))]
        if len(uses) != 1:
            return False
        call = model.parent(uses[0])
        return isinstance(call, cst.Call) and call.func is uses[0] and model.in_loop(call) is None

    def _reseeded(self, call: cst.Call, func) -> bool:
        """`np.random.seed(0)` run first on every call of the function, before the draw
        from that module's global state: each eager call draws the same numbers again, so
        the numbers baked in at trace time are the ones every call would draw (measured,
        jax 0.10.2: jitted, under disable_jit and plain, equal on every call). The seed
        must be the same on each call: a literal, or a module-level name bound once."""
        model = self.model
        q = model.qualname(call.func) or ""
        module = q.rpartition(".")[0]
        body = getattr(func.node.body, "body", ())
        if module not in _RANDOM_MODULES or model.function_of(call) is not func:
            return False
        for stmt in body:
            if model.order[stmt] > model.order[call]:
                break
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            seeding = small.value if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) else None
            if seeding is not None and model.qualname(seeding.func) == f"{module}.seed" \
                    and len(seeding.args) == 1 and seeding.args[0].keyword is None and not seeding.args[0].star \
                    and isinstance(stated_value(model, seeding.args[0].value), int):
                return True
        return False

    def _seeds_host_clock(self, call: cst.Call, func) -> bool:
        """`last = time.time()` read only by a host callback that keeps it current
        (`nonlocal last` ... `last = now` in the function `jax.debug.callback` runs): the
        clock value goes to Python code that runs on every call, never into the compiled
        computation, and the callback replaces it on each step."""
        model = self.model
        bound = model.parent(call)
        if not (isinstance(bound, cst.Assign) and len(bound.targets) == 1
                and isinstance(bound.targets[0].target, cst.Name)):
            return False
        seed = bound.targets[0].target
        refs = [n for n in model.names_spelled_in(seed.value, func.node) if n is not seed
                and not (isinstance(model.parent(n), cst.Attribute) and model.parent(n).attr is n)
                and not (isinstance(model.parent(n), cst.Arg) and model.parent(n).keyword is n)]
        kept = False
        for ref in refs:
            host = model.function_of(ref)
            if host is None or host is func or seed.value not in host.scope.nonlocals \
                    or trace_time_function(model, ref) is not None:
                return False  # read by the traced code, or by another function's state
            kept = kept or isinstance(model.parent(ref), cst.AssignTarget)
        return kept

    def _kind(self, call: cst.Call) -> Optional[str]:
        model = self.model
        q = model.qualname(call.func)
        if q in _CLOCKS:
            return "clock"
        if q is not None:
            module, _, attr = q.rpartition(".")
            if module in _RANDOM_MODULES and attr not in _NOT_DRAWS:
                return "random"
            return None
        # rng.normal() on a generator made outside the trace.
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and self._external_generator(func.value):
            return "random"
        return None

    def _external_generator(self, name: cst.Name) -> bool:
        model = self.model
        func = model.function_of(name)
        if func is None or outlives_trace(model, name, func) is None:
            return False
        bindings = model.scope_of(name).lookup(name.value)
        if not bindings:
            return False
        for b in bindings:
            value = getattr(b.node, "value", None)
            if b.kind != "assign" or not isinstance(value, cst.Call) \
                    or model.qualname(value.func) not in _GENERATORS:
                return False
        return True
