"""JAX601: a hand-made timer around JAX work that never waits for the result."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.cost import eager_statements_work
from jaxlint.engine.callees import (argument_for, call_sites, entering_instances, entering_withs, function_of_callable,
                                     passed_arguments)
from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.model import walk
from jaxlint.engine.order import compiles_each_run, compiles_first
from jaxlint.engine.values import Shape
from jaxlint.engine.waits import function_waits
from jaxlint.engine.scopes import BindingKind, target_names
from jaxlint.jax_api import (WAITING_TRANSFORMS, DISPATCH_BOUND_ELEMENTS, DISPATCH_BOUND_MIN_CALLS, DISPATCH_BOUND_MIN_OPS, SHAPE_FUNCTIONS, AOT_METHODS, ARRAY_METHODS, BLOCKING_FUNCTIONS, BLOCKING_METHODS, CLOCK_FUNCTIONS, HOST_ARRAY_MODULES,
                             INSTANT_WORK, NUMPY_CONVERTING_METHODS, SIZE_DEPENDENT_FUNCTIONS, TIMEIT_FUNCTIONS, TRANSFORMS,
                             array_module_function)
from jaxlint.notebook import TIMED_MARKER
from jaxlint.rules._recompile import called_function
from jaxlint.rules.base import Rule

# These need their argument's value only when they format or convert it.
_FORMATTERS = frozenset({"builtins.print", "builtins.str", "builtins.repr", "builtins.format"})
_STRINGS = (cst.SimpleString, cst.ConcatenatedString)
#: Calls that never read a JAX array's value.
_PURE_PYTHON = frozenset({
    "builtins.range", "builtins.len", "builtins.enumerate", "builtins.zip", "builtins.next",
    "builtins.iter", "builtins.isinstance", "builtins.min", "builtins.max", "builtins.list",
    "builtins.tuple", "builtins.dict", "time.sleep",
})
_STORING_METHODS = frozenset({"append", "extend", "appendleft", "put", "put_nowait"})
_FIX = ("call `.block_until_ready()` on the result (or `jax.block_until_ready(out)`) "
        "before reading the clock")


class TimingWithoutBlock(Rule):
    code = "JAX601"
    name = "timing-without-block"
    summary = "Timing JAX work without block_until_ready measures only the dispatch"
    severity = "warning"
    confirm_kind = "timing"

    def check(self):
        model = self.model
        calls = list(model.nodes(cst.Call))
        clocks = [c for c in calls if model.qualname(c.func) in CLOCK_FUNCTIONS
                  and model.traced_function_of(c) is None]
        for start in clocks:
            if self._ends_a_timer(start):
                continue
            stop = self._stop(start, clocks)
            if stop is None:
                continue
            first = self._region_start(start)
            if first is None:
                continue
            end = model.order[stop]
            stop_ancestors = set(model.ancestors(stop))
            region = [c for c in calls if first <= model.order[c] < end
                      and c not in stop_ancestors]
            work = self._last_work(region, model.function_of(start))
            if work is None:
                yield from self._context_timer(start, stop)  # start and stop in one function
                continue
            if self._blocked(work, region) or self._blocks_each_round(start, stop, calls) \
                    or self._times_compile(work) or self._compiles_first(work, region):
                continue
            if self._may_sync_after(work, region, stop, first) or self._rate_limit(stop) \
                    or any(self._raises(c) for c in region) or self._scalars_after_wait(work, region) \
                    or self._repeats_synced_loop(work, region, first) \
                    or self._dispatch_bound(self._between(start, stop)):
                continue
            yield self._with_fix(self.report(
                stop, f"`{self.source(stop.func)}()` stops the timer while `{self.source(work)}`"
                      f"{self._passed_note(work)} "
                      f"may still be running: JAX dispatches asynchronously, so this measures "
                      f"only the dispatch, not the computation; {_FIX}", model.function_of(stop),
                work=self.source(work), start_line=model.line_of(start)), work)
        yield from self._class_timers(clocks)
        for call in calls:
            if model.qualname(call.func) in TIMEIT_FUNCTIONS and model.traced_function_of(call) is None:
                yield from self._timeit(call, calls)
        if model.cells:
            yield from self._timed_magics(calls)

    def _scalars_after_wait(self, work: cst.Call, region: list[cst.Call]) -> bool:
        """The region waited for its step (`loss.block_until_ready()`: one output of a
        compiled program waits for all of it), then computed numbers for the log line from
        Python scalars or the values it waited for (`lr = schedule(step)`,
        `jnp.float32(loss[0])`): what the clock misses is scalar work, not the step."""
        model = self.model
        func = model.function_of(work)
        mine = [c for c in region if model.function_of(c) is func]
        waits = [c for c in mine if model.order[c] < model.order[work] and self._is_blocking(c)
                 and work not in model.ancestors(c)]
        if not waits:
            return False
        last = max(waits, key=lambda c: model.order[c])
        waited = {n.value for c in waits for n in _names(c)}
        before = [c for c in mine if model.order[c] < model.order[last]]
        work_before = [c for c in before if self._is_jax_work(c)]
        step = work_before[-1:] or before  # the last JAX work; else any call (an imported step)
        if not any(self._bound_names(c) & waited for c in step):
            return False  # the wait is not for the step dispatched last before it
        later = [c for c in mine if model.order[c] > model.order[last] and self._is_jax_work(c)]
        return bool(later) and all(self._scalar_work(c, waited) for c in later)

    def _repeats_synced_loop(self, work: cst.Call, region: list[cst.Call], first: int) -> bool:
        """The work follows a timed loop that waits for each round's result, and repeats a
        call the loop makes (an EM loop run until `float(log_likelihood(...))` converges,
        then one more `e_step(...)`): the clock waited for every round and misses one
        call of one more."""
        model = self.model
        func = model.function_of(work)
        if any(isinstance(a, (cst.For, cst.While)) and model.order[a] >= first for a in model.ancestors(work)):
            return False
        for loop in model.nodes(cst.For, cst.While):
            if not first <= model.order[loop] < model.order[work] or model.function_of(loop) is not func:
                continue
            end = max(model.order[n] for n in walk(loop))
            inside = [c for c in region if loop in model.ancestors(c) and model.function_of(c) is func]
            steps = {self.source(c.func) for c in inside if self._is_jax_work(c)}
            after = [c for c in region if end < model.order[c] and model.function_of(c) is func
                     and self._is_jax_work(c)]
            if not after or not all(self.source(c.func) in steps for c in after):
                continue
            tests = [n for n in walk(loop.body) if isinstance(n, cst.If) and model.function_of(n) is func]
            if any(self._waits_each_round(c, c, loop) for c in inside if self._is_blocking(c)) \
                    or any(self._waits_each_round(n, n.test, loop) for n in tests):
                return True
        return False

    def _waits_each_round(self, node: cst.CSTNode, waited: cst.CSTNode, loop: cst.For | cst.While) -> bool:
        """A wait that every round of `loop` runs, for a value the round computed:
        `float(log_likelihood(x, mu))`, `loss.item()` or `if loss < best:` of `loss`
        bound from JAX work."""
        model = self.model
        for anc in model.ancestors(node):
            if anc is loop:
                break
            if isinstance(anc, (cst.If, cst.For, cst.While, cst.Try, cst.IfExp, cst.BooleanOperation)):
                return False  # a wait some rounds skip
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value in BLOCKING_METHODS:
            waited = node.func.value
        if any(isinstance(c, cst.Call) and c is not node and self._is_jax_work(c) for c in walk(waited)):
            return True
        computed = {name for c in model.nodes(cst.Call) if loop in model.ancestors(c) and self._is_jax_work(c)
                    for name in self._bound_names(c)}
        return _mentions(waited, computed)

    def _bound_names(self, call: cst.Call) -> set[str]:
        """The names the assignment holding `call` binds (`loss, w = step(w, x)`)."""
        for anc in self.model.ancestors(call):
            if isinstance(anc, cst.Assign):
                return {n.value for t in anc.targets for n in target_names(t.target)}
            if isinstance(anc, cst.BaseStatement):
                break
        return set()

    def _scalar_work(self, call: cst.Call, waited: set[str]) -> bool:
        """Every input is a Python scalar or a value the region already waited for, and
        the call is not one that sizes an array from its arguments (`jnp.ones(n)`)."""
        model = self.model
        if model.qualname(call.func) in SHAPE_FUNCTIONS or not call.args:
            return False
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
        if receiver is not None and self._jax_array(receiver) \
                and not {n.value for n in _names(receiver)} <= waited:
            return False  # `x.sum(axis=0)`: the work is on the array, not the arguments
        for arg in call.args:
            value = model.value(arg.value)
            if value.static and value.shape is Shape.SCALAR:
                continue
            names = {n.value for n in _names(arg.value)}
            if arg.star or not names or not names <= waited:
                return False
        return True

    def _context_timer(self, start: cst.Call, stop: cst.Call):
        """A `@contextmanager` timer that reads the clock before and after its `yield`:
        it times the body of each `with` that enters it, which ends as soon as the
        body's last JAX work is dispatched unless the body waits for it."""
        model = self.model
        func = model.function_of(start)
        if func is None or not any(model.order[start] < model.order[y] < model.order[stop]
                                   for y in model.nodes(cst.Yield) if model.function_of(y) is func):
            return
        yield from self._timed_withs(entering_withs(model, func), stop, func,
                                     start_line=model.line_of(start))

    def _class_timers(self, clocks: list[cst.Call]):
        """A timer class whose `__enter__` and `__exit__` read the clock (`with Timer() as t:`):
        like a `@contextmanager` timer, it times the body of each `with` that makes one."""
        model = self.model
        for klass in model.classes:
            enter, leave = model.class_method(klass, "__enter__"), model.class_method(klass, "__exit__")
            if enter is None or leave is None or not any(model.function_of(c) is enter for c in clocks):
                continue
            stop = next((c for c in clocks if model.function_of(c) is leave), None)
            start = next((c for c in clocks if model.function_of(c) is enter), None)
            if stop is not None:
                yield from self._timed_withs(entering_instances(model, klass), stop, leave, klass.name,
                                             model.line_of(start))

    def _timed_withs(self, withs: list[cst.With], stop: cst.Call, func: FunctionInfo, name: str = "",
                     start_line: Optional[int] = None):
        """The first `with` body that ends with JAX work nothing waits for."""
        model = self.model
        for with_node in withs:
            inside = [n for n in walk(with_node.body)]
            region = [n for n in inside if isinstance(n, cst.Call)]
            work = self._last_work(region, model.function_of(with_node))
            if work is None or self._blocked(work, region):
                continue
            end = max(model.order[n] for n in inside) + 1
            if self._may_sync_after(work, region, None, model.order[with_node.body], end):
                continue
            yield self._with_fix(self.report(
                stop, f"`{self.source(stop.func)}()` stops the timer `{name or func.name}` when the `with` body "
                      f"at line {model.line_of(with_node)} ends, while `{self.source(work)}` may still "
                      f"be running: JAX dispatches asynchronously, so this measures only the dispatch, "
                      f"not the computation; wait for the body's result (`jax.block_until_ready(...)`) "
                      f"before the `with` ends", func, work=self.source(work),
                start_line=start_line), work)
            return

    def _with_fix(self, report, work: cst.Call):
        from jaxlint.fixes.timing import block_fix

        report.fix = block_fix(self.model, work)
        return report

    def _dispatches_when_called(self, work: cst.Call) -> bool:
        """A function of the notebook called by its own name runs jitted only when decorated:
        `g_jit = jax.jit(g)` elsewhere does not make `%timeit g(x)` asynchronous."""
        info = self.model.resolve_function(work.func) if isinstance(work.func, cst.Name) else None
        if info is None:
            return True
        if any(c.via == "decorator" and c.cached for c in info.contexts.values()):
            return True
        body = [c for c in self.model.nodes(cst.Call) if self.model.function_of(c) is info]
        return not self._waits(info, body) and any(_device_work(self.model.qualname(c.func)) for c in body)

    def _timed_magics(self, calls: list[cst.Call]):
        """`%timeit f(x)` / `%time f(x)` in a notebook (marked by jaxlint.notebook)."""
        model = self.model
        for line in model.nodes(cst.SimpleStatementLine):
            comment = line.trailing_whitespace.comment
            if comment is None or TIMED_MARKER not in comment.value:
                continue
            magic = comment.value.rsplit(TIMED_MARKER, 1)[1].strip()
            region = [c for c in calls if line in set(model.ancestors(c))]
            work = self._last_work(region, model.function_of(line))
            if work is None or self._blocked(work, region) or not self._dispatches_when_called(work) \
                    or any(c in set(model.ancestors(work)) and self._handed_to(work, c) for c in region) \
                    or self._times_compile(work) or _runs_once(magic) and self._compiles_first(work, region) \
                    or self._dispatch_bound([line], repeated=_repeats(magic)):
                continue
            yield self._with_fix(self.report(
                work, f"`%{magic}` times `{self.source(work)}`, which returns as soon as the work is "
                      f"dispatched: JAX runs asynchronously, so it measures only the dispatch, not the "
                      f"computation; time `{self.source(work)}.block_until_ready()`",
                model.function_of(line), work=self.source(work)), work)

    def _dispatch_bound(self, statements: Optional[list], repeated: bool = False) -> bool:
        """The timed statements dispatch only eager ops on arrays whose sizes the code
        states, each small enough that the device finishes it before the next dispatch
        returns (engine.cost.eager_statements_work; bounds in DISPATCH_BOUND_ELEMENTS):
        the clock then misses at most the last op in flight, little against the many
        dispatches it times (`%timeit convolve(x, w)` on 6 elements, an eager `vmap` of a
        polynomial on 3x500 values), or call a jitted function of this file many times whose
        ops together touch few elements. A large program, a library call or an unsized
        array keeps the finding."""
        if not statements:
            return False
        work = eager_statements_work(self.model, statements)
        if work is None or not work.ops:
            return False
        # A jitted program is one dispatch of all its ops: dispatch-bound where all of them
        # together are small and the loop calls it many times, so the one call in flight at
        # the clock is small against the dispatches timed (the 2x2 eigenproblem of
        # `for e in es: f(1.0, e)`).
        if any(elements > DISPATCH_BOUND_ELEMENTS["jit"] or not repeated and calls < DISPATCH_BOUND_MIN_CALLS
               for elements, calls in work.programs):
            return False
        if work.batched:
            bound = DISPATCH_BOUND_ELEMENTS["vmap"]
        elif repeated or work.repeats >= 100:
            bound = DISPATCH_BOUND_ELEMENTS["repeated"]
        else:
            bound = DISPATCH_BOUND_ELEMENTS["eager"]
        return work.largest <= bound and (repeated or work.ops >= DISPATCH_BOUND_MIN_OPS)

    def _between(self, start: cst.Call, stop: cst.Call) -> Optional[list]:
        """The statements after the one that starts the timer and before the one that
        stops it, when both are in one block (None otherwise)."""
        model = self.model
        first, last = (next((a for a in model.ancestors(c) if isinstance(a, cst.SimpleStatementLine)), None)
                       for c in (start, stop))
        body = getattr(model.parent(first), "body", None) if first is not None else None
        if not isinstance(body, (list, tuple)):
            return None
        where = {id(s): i for i, s in enumerate(body)}
        if id(first) not in where or id(last) not in where:
            return None
        return list(body[where[id(first)] + 1:where[id(last)]])

    def _raises(self, call: cst.Call) -> bool:
        """A call of a function of this file with more positional arguments than it takes
        (`f(100)` of `def f():`): it raises TypeError, so the clock after it never stops."""
        info = self.model.resolve_function(call.func) if isinstance(call.func, cst.Name) else None
        node = info.node if info is not None else None
        if not isinstance(node, cst.FunctionDef) or isinstance(node.params.star_arg, cst.Param) \
                or node.decorators or any(a.star or a.keyword is not None for a in call.args):
            return False
        return len(call.args) > len(node.params.posonly_params) + len(node.params.params)

    def _times_compile(self, work: cst.Call) -> bool:
        """The first call of a function jitted in the same scope, timed when the file later
        waits for a call of the same function: a compile-time / run-time pair. Compiling
        is synchronous, so the first timer holds the compile; the run is timed, blocked,
        by the second, and the execution still pending at the first belongs to neither."""
        model = self.model
        func = work.func
        if not isinstance(func, cst.Name) or model.in_loop(work) is not None:
            return False
        binding = model.binding_in_effect(func)
        if binding is None or not self._compiles(binding) \
                or model.function_of(binding.node) is not model.function_of(work):
            return False
        same = [c for c in model.calls_named(func.value)
                if c is not work and model.binding_in_effect(c.func) is binding]
        if any(model.order[c] < model.order[work] for c in same) or self._passed_before(func, binding, work):
            return False
        return any(model.order[c] > model.order[work] and self._waited_for(c) for c in same)

    def _compiles_first(self, work: cst.Call, region: list[cst.Call]) -> bool:
        """The region's JAX work starts programs that compile in it and runs nothing the
        clock could miss but a few runs of them: each call either compiles (the first
        call of a function jitted just before it: `jax.jit(f)(x)`, `@jax.jit def f` /
        `jf = jax.jit(f)` not called since, at module level or afresh in each run of a
        function, `engine.order`), runs before the last such compile (an argument of it,
        eager work dispatched before it), or calls again, outside any loop of the
        region, a program the region compiled (`step(x)` twice after `step = jax.jit(...)`).
        Compiling is synchronous and holds the timer; what the clock misses is the runs
        written out after the last compile, not a queue of dispatched work."""
        model = self.model
        func = model.function_of(work)
        mine = [c for c in region if model.function_of(c) is func and self._is_jax_work(c)]
        compiling = [c for c in mine if self._compiles_here(self._outermost_work(c))]
        if not compiling:
            return False
        last = max(model.order[c] for c in compiling)
        programs = {id(b) for c in compiling if isinstance(c.func, cst.Name)
                    for b in [model.binding_in_effect(c.func)] if b is not None}
        start = min(model.order[c] for c in region) if region else model.order[work]
        for c in mine:
            ancestors = model.ancestors(c)
            if any(c is k or any(a is k for a in ancestors) for k in compiling):
                continue  # a compiling call, or an argument of one
            if model.order[c] < last:
                continue  # dispatched before the last compile
            binding = model.binding_in_effect(c.func) if isinstance(c.func, cst.Name) else None
            in_loop = any(isinstance(a, (cst.For, cst.While)) and model.order[a] >= start for a in ancestors)
            if binding is None or id(binding) not in programs or in_loop:
                return False
        return True

    def _outermost_work(self, work: cst.Call) -> cst.Call:
        """`jax.jit(f)(params, jnp.ones(3))` for `jnp.ones(3)`: the call that runs last."""
        model = self.model
        func = model.function_of(work)
        for anc in model.ancestors(work):
            if isinstance(anc, (cst.BaseStatement, cst.Lambda)):
                break
            if isinstance(anc, cst.Call) and model.function_of(anc) is func and self._is_jax_work(anc):
                work = anc
        return work

    def _compiles_here(self, call: cst.Call) -> bool:
        return compiles_first(self.model, call) or compiles_each_run(self.model, call)

    def _compiles(self, binding) -> bool:
        """A `def` under a caching jit decorator, or `f = jax.jit(g)`."""
        if binding.function is not None:
            return any(c.via == "decorator" and c.cached for c in binding.function.contexts.values())
        value = getattr(binding.node, "value", None)
        transform = TRANSFORMS.get(self.model.qualname(value.func)) if isinstance(value, cst.Call) else None
        return transform is not None and transform.cached

    def _passed_before(self, func: cst.Name, binding, work: cst.Call) -> bool:
        """A read of the name before `work` that is not a call (`g = f`, `vmap(f)`): it may
        have run, and compiled, already."""
        model = self.model
        for name in model.nodes(cst.Name):
            if name.value != func.value or model.order[name] >= model.order[work] \
                    or model.order[name] <= model.order[binding.node]:
                continue
            parent = model.parent(name)
            if isinstance(parent, cst.Call) and parent.func is name:
                continue
            if model.binding_in_effect(name) is binding:
                return True
        return False

    def _waited_for(self, call: cst.Call) -> bool:
        """`f(x).block_until_ready()` or `jax.block_until_ready(f(x))`: a wait written for a
        timer (printing a result waits too, but says nothing of timing)."""
        for anc in self.model.ancestors(call):
            if not isinstance(anc, cst.Call):
                continue
            if isinstance(anc.func, cst.Attribute) and anc.func.attr.value == "block_until_ready" \
                    or self.model.qualname(anc.func) == "jax.block_until_ready":
                return True
        return False

    # ------------------------------------------------------------ clock pairs
    def _stop(self, start: cst.Call, clocks: list[cst.Call]) -> Optional[cst.Call]:
        """The clock read that stops a timer started by `t0 = time.time()`."""
        model = self.model
        stmt = model.parent(start)
        if not isinstance(stmt, cst.Assign) or stmt.value is not start:
            return None
        func = model.function_of(start)
        names = [t.target.value for t in stmt.targets if isinstance(t.target, cst.Name)]
        for clock in clocks:
            if model.order[clock] > model.order[start] and model.function_of(clock) is func:
                parent = model.parent(clock)
                if isinstance(parent, cst.Assign) and any(
                        isinstance(t.target, cst.Name) and t.target.value in names for t in parent.targets):
                    return None  # `t0 = time.time()` again: the timer restarts, nothing is read
                if self._starts_another_timer(clock, names):
                    continue
                return clock
        return None

    def _ends_a_timer(self, clock: cst.Call) -> bool:
        """`e = time.time()` whose `e` is later only the end of an interval (`e - s`): the
        read stops a timer, it starts none."""
        model = self.model
        stmt = model.parent(clock)
        if not isinstance(stmt, cst.Assign) or stmt.value is not clock:
            return False
        names = {t.target.value for t in stmt.targets if isinstance(t.target, cst.Name)}
        func = model.function_of(clock)
        uses = [n for n in model.nodes(cst.BinaryOperation) if isinstance(n.operator, cst.Subtract)
                and model.order[n] > model.order[clock] and model.function_of(n) is func]
        return bool(names) and any(_mentions(n.left, names) for n in uses) \
            and not any(_mentions(n.right, names) for n in uses)

    def _starts_another_timer(self, clock: cst.Call, names: list[str]) -> bool:
        """A clock read that only starts the next timer: `t1 = time.time()` whose `t1`
        is later subtracted as a start (`time.time() - t1`) and never meets `t0`, or
        `time.time() - t1` itself. The finding belongs on the read that stops `t0`."""
        model = self.model
        stmt = next((a for a in model.ancestors(clock)
                     if isinstance(a, (cst.BaseSmallStatement, cst.BaseCompoundStatement))), None)
        if stmt is None or _mentions(stmt, names):
            return False
        if isinstance(stmt, cst.Assign):
            own = [t.target.value for t in stmt.targets if isinstance(t.target, cst.Name)]
            if not own:
                return False
            later = [n for n in model.nodes(cst.BinaryOperation)
                     if model.order[n] > model.order[clock] and model.function_of(n) is model.function_of(clock)]
            if any(_mentions(n, own) and _mentions(n, names) for n in later):
                return False
            return any(isinstance(n.operator, cst.Subtract) and _mentions(n.right, own) for n in later)
        # `print(time.time() - t1)`: the read stops another timer.
        for anc in model.ancestors(clock):
            if anc is stmt:
                return False
            if isinstance(anc, cst.BinaryOperation) and isinstance(anc.operator, cst.Subtract) \
                    and isinstance(anc.right, cst.Name):
                return True
        return False

    def _rate_limit(self, stop: cst.Call) -> bool:
        """`if time.time() - last > interval:` throttles logging; it times nothing."""
        for anc in self.model.ancestors(stop):
            if isinstance(anc, cst.Comparison):
                return True
            if isinstance(anc, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                return False
        return False

    def _may_sync_after(self, work: cst.Call, region: list[cst.Call], stop: Optional[cst.Call], first: int,
                        end: Optional[int] = None) -> bool:
        """Whether code after the work may wait for it: only definite dispatch-only code
        between the work and the clock makes the timing wrong.

        Any call that is neither JAX work nor a known pure-Python helper (a logger, a
        metrics helper that calls `device_get`, a progress bar, `plt.savefig`), and any
        formatting, `assert` or `if` on a value, may read a result on the host, which
        waits for it. In a loop around the work, code before the work runs after the
        previous round's work, and a `while` test runs after each round's.
        """
        model = self.model
        after = model.order[work]
        ancestors = set(model.ancestors(work))
        loops = [a for a in ancestors if isinstance(a, (cst.For, cst.While)) and model.order[a] >= first]
        loop_bodies = [loop.body for loop in loops]

        def runs_after_work(node: cst.CSTNode) -> bool:
            return model.order[node] > after or any(b in set(model.ancestors(node)) for b in loop_bodies)

        for c in region:
            if c in ancestors and self._handed_to(work, c):
                return True  # `replay.set_priority(idx, jnp.sqrt(loss))`: the callee gets the result
            if c in ancestors or work in set(model.ancestors(c)) or not runs_after_work(c):
                continue  # before the work, around it, or part of it (`jax.jit(f)` in `jax.jit(f)(x)`)
            if self._is_jax_work(c) or model.qualname(c.func) in _PURE_PYTHON | INSTANT_WORK:
                continue
            if isinstance(c.func, cst.Attribute) and c.func.attr.value in _STORING_METHODS:
                continue  # losses.append(loss): keeps the array, reads nothing
            if model.qualname(c.func) in _FORMATTERS and all(
                    isinstance(a.value, _STRINGS) for a in c.args):
                continue  # print("done"): a constant message reads no array
            return True
        if stop is not None:
            end = model.order[stop]
        stop_ancestors = set(model.ancestors(stop)) if stop is not None else set()
        if stop is not None and self._formats_before(stop):
            return True
        for node in model.nodes(cst.FormattedString, cst.Assert, cst.If, cst.While):
            # f"{loss}", `assert x.all()`, `if loss > 0`: each may read a result.
            if node in stop_ancestors or model.order[node] >= end or not runs_after_work(node) \
                    or node in ancestors or model.function_of(node) is not model.function_of(work):
                continue
            return True
        # `while not done:` around the work, with `done` computed by it: the test reads
        # the result after every round.
        return any(isinstance(loop, cst.While) and self._reads_results(loop.test, loop) for loop in loops)

    def _handed_to(self, work: cst.Call, call: cst.Call) -> bool:
        """The work's result is an argument of `call`, a helper not known to leave it
        unread (not JAX, not pure Python, not a store, not a class that keeps it): the
        helper runs after the work and may read it on the host, which waits for it."""
        if not any(a.value is work or a.value in set(self.model.ancestors(work)) for a in call.args):
            return False
        name = call.func.attr.value if isinstance(call.func, cst.Attribute) else \
            call.func.value if isinstance(call.func, cst.Name) else ""
        return not name[:1].isupper() and self._may_read(call)

    def _formats_before(self, stop: cst.Call) -> bool:
        """`f"loss {loss:.3f} in {time.time() - t0:.1f}s"`: an f-string formats its parts
        left to right, so a value formatted before the clock read is already on the host."""
        child: cst.CSTNode = stop
        for anc in self.model.ancestors(stop):
            if isinstance(anc, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                return False
            if isinstance(anc, cst.FormattedString):
                for part in anc.parts:
                    if part is child:
                        break
                    if isinstance(part, cst.FormattedStringExpression) \
                            and not isinstance(part.expression, _STRINGS + (cst.Integer, cst.Float)):
                        return True
            child = anc
        return False

    def _reads_results(self, test: cst.BaseExpression, loop: cst.While) -> bool:
        """A `while` test around the work that names what the loop body binds from JAX work."""
        model = self.model
        names = {n.value for n in _names(test)}
        for assign in model.nodes(cst.Assign, cst.AugAssign):
            if loop not in set(model.ancestors(assign)):
                continue
            targets = assign.targets if isinstance(assign, cst.Assign) else [assign]
            bound = {n.value for t in targets for n in _names(t.target)}
            if bound & names and any(isinstance(c, cst.Call) and self._is_jax_work(c)
                                     for c in walk(assign.value)):
                return True
        return False

    def _blocks_each_round(self, start: cst.Call, stop: cst.Call, calls: list[cst.Call]) -> bool:
        """A throughput timer read in a loop that waits for a result on each round.

        `steps / (time.time() - prev)` logged every N steps, with `float(loss)` later in
        the loop body: once the queue of dispatched steps is bounded by that wait, the
        interval measures real work.
        """
        model = self.model
        loop = model.in_loop(stop)
        if not isinstance(loop, (cst.For, cst.While)) or loop in set(model.ancestors(start)):
            return False
        return any((self._is_blocking(c) or self._may_read(c)) and loop in set(model.ancestors(c))
                   for c in calls)

    def _may_read(self, c: cst.Call) -> bool:
        """A call that is not known to leave JAX results unread (an unknown helper)."""
        model = self.model
        if self._is_jax_work(c) or model.qualname(c.func) in _PURE_PYTHON | INSTANT_WORK:
            return False
        if model.qualname(c.func) in CLOCK_FUNCTIONS:
            return False
        if isinstance(c.func, cst.Attribute) and c.func.attr.value in _STORING_METHODS:
            return False
        if model.qualname(c.func) in _FORMATTERS and all(isinstance(a.value, _STRINGS) for a in c.args):
            return False
        return True

    def _region_start(self, start: cst.Call) -> Optional[int]:
        """The order of the first node after the statement that started the timer."""
        model = self.model
        line = model.parent(model.parent(start))
        block = model.parent(line)
        body = getattr(block, "body", None)
        if not isinstance(line, cst.SimpleStatementLine) or not isinstance(body, (list, tuple)):
            return None
        index = next((i for i, s in enumerate(body) if s is line), None)
        if index is None or index + 1 >= len(body):
            return None
        return model.order[body[index + 1]]

    # ------------------------------------------------------------ timeit
    def _timeit(self, call: cst.Call, calls: list[cst.Call]):
        model = self.model
        stmt = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "stmt"), None)
        if isinstance(stmt, cst.Lambda):
            body = [c for c in calls if model.function_of(c) is model.function_info(stmt)]
            func = model.function_info(stmt)
        elif isinstance(stmt, cst.Name) and (info := model.resolve_function(stmt)) is not None:
            body = [c for c in calls if model.function_of(c) is info]
            func = info
        else:
            return
        work = self._last_work(body, func)
        if work is None or self._blocked(work, body):
            return
        yield self._with_fix(self.report(
            call, f"`{self.source(call.func)}` times a callable that returns as soon as "
                  f"`{self.source(work)}` is dispatched: JAX runs asynchronously, so it measures "
                  f"only the dispatch, not the computation; end the callable with "
                  f"`.block_until_ready()` on its result", model.function_of(call),
            work=self.source(work)), work)

    # ------------------------------------------------------------ work and blocking
    def _last_work(self, region: list[cst.Call], func: Optional[FunctionInfo]) -> Optional[cst.Call]:
        work = None
        for call in region:
            if self.model.function_of(call) is func and self._is_jax_work(call) \
                    and not self._compiled_only(call):
                work = call
        # `jit_f(jnp.ones(4))`: the argument is dispatched first, the call that takes it last.
        return self._outermost_work(work) if work is not None else None

    def _compiled_only(self, call: cst.Call) -> bool:
        """An argument of `f.lower(x)` (or `.trace`): lowering reads its shape only, and
        the clock around it times the compiler, which runs on the host."""
        return any(isinstance(anc, cst.Call) and _aot_step(anc) for anc in self.model.ancestors(call))

    def _is_jax_work(self, call: cst.Call) -> bool:
        """A call that dispatches JAX computations and returns before they finish."""
        model = self.model
        if self._waits_on_return(call):
            return False
        q = model.qualname(call.func)
        if q is not None:
            return _device_work(q) and not self._is_blocking(call)
        jitted = self._jitted_def(call)
        if jitted is not None and (_computes_nothing(jitted) or self._constant_result(jitted)):
            return False  # no device work follows the call
        if isinstance(call.func, cst.Call):  # jax.jit(f)(x), jax.grad(f)(x)
            return model.qualname(call.func.func) in TRANSFORMS
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in ARRAY_METHODS \
                and call.func.attr.value not in BLOCKING_METHODS and self._jax_array(call.func.value):
            return True  # `x.sum()`: the method dispatches like `jnp.sum(x)`
        info = model.resolve_function(call.func) if isinstance(call.func, cst.Name) else None
        if info is None and isinstance(call.func, cst.Attribute):
            # `runner.plan(1)`: a method of an object of a class of this file.
            info = called_function(model, call)
        if info is not None:
            return self._dispatches(info)
        return self._bound_to_transform(call.func) or self._passed_work(call) is not None

    def _jitted_def(self, call: cst.Call) -> Optional[FunctionInfo]:
        """The function of this file that `call` runs jitted: `f(x)` of `@jax.jit def f`,
        `jf(x)` of `jf = jax.jit(f)`, `jax.jit(f)(x)`."""
        model = self.model
        func = call.func
        if isinstance(func, cst.Name):
            binding = model.binding_in_effect(func)
            if binding is None:
                return None
            if binding.function is not None:
                info = binding.function
                return info if any(c.via == "decorator" and c.cached for c in info.contexts.values()) else None
            func = getattr(binding.node, "value", None)
        if not isinstance(func, cst.Call) or not func.args:
            return None
        transform = TRANSFORMS.get(model.qualname(func.func))
        if transform is None or not transform.cached:
            return None
        wrapped = func.args[0].value
        if isinstance(wrapped, cst.Lambda):
            return model.function_info(wrapped)
        return model.resolve_function(wrapped) if isinstance(wrapped, cst.Name) else None

    def _constant_result(self, info: FunctionInfo) -> bool:
        """A jitted body that reads only its static parameters and its own locals and
        calls only pure-Python builtins (`for i in range(10): total += i ** 2` with
        `static_argnums` for every parameter it reads): the Python runs once, while
        tracing, and the compiled program returns a constant, so no device work is left
        for a timer to miss (measured: 3.8 us at the clock, 4.3 us waited for)."""
        model = self.model
        node = info.node
        if not isinstance(node, cst.FunctionDef) or not info.static_params:
            return False
        static, params = info.static_params, set(info.all_params)
        local = set(info.scope.bindings)
        for n in walk(node.body):
            if isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(n, cst.Call) and model.qualname(n.func) not in _PURE_PYTHON:
                return False
            if not isinstance(n, cst.Name):
                continue
            parent = model.parent(n)
            if isinstance(parent, cst.Attribute) and parent.attr is n \
                    or isinstance(parent, cst.Arg) and parent.keyword is n:
                continue
            if n.value in params and n.value not in static:
                return False  # a traced argument: work on it runs on the device
            if n.value not in params and n.value not in local and not (model.qualname(n) or "").startswith("builtins."):
                return False  # a global: it may hold an array
        return True

    def _jax_array(self, expr: cst.BaseExpression) -> bool:
        """A JAX array by the value analysis, an attribute every write sets to one
        (`self.factors = jnp.concatenate(...)` read as `foo.factors`), or arithmetic on one."""
        model = self.model
        if model.value(expr).array:
            return True
        if isinstance(expr, cst.BinaryOperation):  # `(w @ w).sum()`
            return self._jax_array(expr.left) or self._jax_array(expr.right)
        values = model.attribute_assignments(expr) if isinstance(expr, cst.Attribute) else None
        return bool(values) and all(model.value(v).array for v in values)

    def _passed_note(self, work: cst.Call) -> str:
        """` (fn is apply_jit at line 41)` for work through a callable parameter."""
        site = self._passed_work(work) if not self._bound_to_transform(work.func) else None
        if site is None or self.model.resolve_function(work.func) is not None:
            return ""
        arg = dict((id(c), a) for c, a in passed_arguments(self.model, work.func))[id(site)]
        return f" (`{self.source(work.func)}` is `{self.source(arg)}` at line {self.model.line_of(site)})"

    def _passed_work(self, call: cst.Call) -> Optional[cst.Call]:
        """`fn(*args)` in `def time_call(fn, *args)`, where a call site of this file passes
        a callable that dispatches (`time_call(apply_jit, x)`): that call site."""
        if not isinstance(call.func, cst.Name):
            return None
        passed = passed_arguments(self.model, call.func) or []
        # A jitted callable first: the message names the clearest case.
        for site, arg in passed:
            if self._bound_to_transform(arg) or isinstance(arg, cst.Call) and self.model.qualname(arg.func) in TRANSFORMS:
                return site
        for site, arg in passed:
            if self._dispatching_callable(arg):
                return site
        return None

    def _dispatching_callable(self, expr: cst.BaseExpression) -> bool:
        """`apply_jit` (bound to `jax.jit(f)`), `jax.jit(f)`, or a function of this file
        that dispatches and does not wait."""
        model = self.model
        if isinstance(expr, cst.Call) and model.qualname(expr.func) in TRANSFORMS:
            return True
        if self._bound_to_transform(expr):
            return True
        info = function_of_callable(model, expr)
        return info is not None and self._dispatches(info)

    def _dispatches(self, info: FunctionInfo) -> bool:
        """A function of this file that is jitted, or that calls jnp / lax directly."""
        if _computes_nothing(info):
            return False  # `pass`, `return state`: a benchmark of the dispatch itself
        if any(isinstance(r.value, cst.Call) and _aot_step(r.value) for r in walk(info.node)
               if isinstance(r, cst.Return)):
            return False  # `return jax.jit(f).lower(x).compile()`: it compiles, on the host
        if any(c.via in ("decorator", "wrapper") and c.cached for c in info.contexts.values()):
            return True
        body = [c for c in self.model.nodes(cst.Call) if self.model.function_of(c) is info]
        if self._waits(info, body):
            return False
        if any(_device_work(self.model.qualname(c.func)) for c in body) or self._hands_keys_on(body):
            return True
        # A helper that calls a jitted function (`self.step()` running `_step(...)`) returns
        # as soon as it is dispatched, when nothing else it calls may read the result (a
        # logger, a metrics helper) and it tests or formats nothing.
        return any(self._calls_jitted(c) for c in body) and all(
            self._calls_jitted(c) or self.model.qualname(c.func) in _PURE_PYTHON
            or isinstance(c.func, cst.Attribute) and c.func.attr.value in _STORING_METHODS
            for c in body) and not any(
            isinstance(n, (cst.FormattedString, cst.If, cst.While, cst.Assert))
            for n in walk(info.node) if self.model.function_of(n) is info)

    def _waits(self, info: FunctionInfo, body: list[cst.Call]) -> bool:
        """The function waits for a device value when it runs: a wait in its body, a test
        on an array, or a function of this file it calls that waits (`pes_scan` calling a
        `relax` loop that stops on `if abs(e - e_old) < tol:` and returns `float(e)`).
        A timer around its call holds the work done before that wait."""
        return any(self._is_blocking(c) for c in body) or function_waits(self.model, info, self._is_blocking)

    def _hands_keys_on(self, body: list[cst.Call]) -> bool:
        """Keys made here and passed to a call this file cannot see into
        (`self.planner(keys, obstacles)`): keys are made to draw with, so the callee is
        presumed to run random work on them."""
        model = self.model
        keys: set[str] = set()
        for c in body:
            assign = model.parent(c)
            if model.qualname(c.func) in INSTANT_WORK and isinstance(assign, cst.Assign) and assign.value is c:
                keys |= {n.value for t in assign.targets for n in target_names(t.target)}
        for c in body:
            q = model.qualname(c.func)
            if q in INSTANT_WORK or array_module_function(q) or q in _PURE_PYTHON:
                continue
            if any(isinstance(a.value, cst.Name) and a.value.value in keys
                   or isinstance(a.value, cst.Call) and model.qualname(a.value.func) in INSTANT_WORK
                   for a in c.args):
                return True
        return False

    def _calls_jitted(self, call: cst.Call) -> bool:
        """A call of a jitted function of this file (`@jax.jit def step`, `step = jax.jit(f)`):
        it returns when the computation is dispatched."""
        info = self.model.resolve_function(call.func) if isinstance(call.func, cst.Name) else None
        if info is not None:
            return any(c.via in ("decorator", "wrapper") and c.cached for c in info.contexts.values()) \
                and not _computes_nothing(info)
        return self._bound_to_transform(call.func)

    def _bound_to_transform(self, func: cst.BaseExpression) -> bool:
        """`step = jax.jit(update)`: a name bound only to a transformed function."""
        if not isinstance(func, cst.Name):
            return False
        bindings = self.model.scope_of(func).lookup(func.value)
        if not bindings:
            return False
        if bindings[0].kind == BindingKind.PARAM:
            return self._rewrapped_parameter(func, bindings)
        for b in bindings:
            node = b.node
            if b.kind != "assign" or not isinstance(node, cst.Assign) \
                    or not isinstance(node.value, cst.Call) \
                    or self.model.qualname(node.value.func) not in TRANSFORMS and not _compiled(node.value):
                return False
        return True

    def _rewrapped_parameter(self, func: cst.Name, bindings) -> bool:
        """`fn = jax.jit(fn)` run first thing in the function that takes `fn`: a read after
        it calls the jitted function."""
        model = self.model
        later = bindings[1:]
        if not later or any(b.kind != BindingKind.ASSIGN or not isinstance(b.node, cst.Assign)
                            or not model.straight_line(b.node) for b in later):
            return False
        before = [b for b in later if b.order < model.order[func]]
        if not before:
            return False
        value = max(before, key=lambda b: b.order).node.value
        return isinstance(value, cst.Call) and model.qualname(value.func) in TRANSFORMS

    def _blocked(self, work: cst.Call, region: list[cst.Call]) -> bool:
        """Whether something waits for the work before the clock is read again."""
        model = self.model
        after = model.order[work]
        ancestors = set(model.ancestors(work))
        return any((model.order[c] > after or c in ancestors) and self._is_blocking(c)
                   for c in region)

    def _is_blocking(self, call: cst.Call) -> bool:
        if self._waits_on_return(call):
            return True
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in BLOCKING_METHODS:
            return True
        if isinstance(func, cst.Attribute) and func.attr.value in NUMPY_CONVERTING_METHODS \
                and self._host_array(func.value):
            # `w.dot(v)` with `w` from np.load: NumPy converts `v`, waiting for it.
            return any(self.model.value(a.value).shape not in (Shape.NUMPY, Shape.SCALAR) for a in call.args)
        q = self.model.qualname(func)
        if q in SIZE_DEPENDENT_FUNCTIONS and self.model.traced_function_of(call) is None:
            return _sizes_from_data(call, SIZE_DEPENDENT_FUNCTIONS[q])
        if q is not None and q.split(".", 1)[0] in HOST_ARRAY_MODULES and q not in BLOCKING_FUNCTIONS:
            return any(self.model.value(a.value).array
                       or isinstance(a.value, cst.Call) and self._is_jax_work(a.value) for a in call.args)
        if q not in BLOCKING_FUNCTIONS or not call.args:
            return False
        if q in _FORMATTERS:
            return any(not isinstance(a.value, _STRINGS) for a in call.args if a.keyword is None)
        return True

    def _waits_on_return(self, call: cst.Call) -> bool:
        """A call of a function wrapped by a transform that waits for its result before
        returning (`WAITING_TRANSFORMS`): `step(x)` of `@eqx.filter_jit def step`,
        `fast = eqx.filter_jit(f)` then `fast(x)`, `eqx.filter_jit(f)(x)`."""
        model = self.model
        func = call.func
        if isinstance(func, cst.Call):
            return _waiting_transform(model.qualname(func.func))
        info = model.resolve_function(func) if isinstance(func, cst.Name) else None
        if info is None and isinstance(func, cst.Attribute):
            info = called_function(model, call)
        if info is not None:
            return any(c.via == "decorator" and c.transforms and c.transforms[0] in WAITING_TRANSFORMS
                       for c in info.contexts.values())
        if not isinstance(func, cst.Name):
            return False
        bindings = model.scope_of(func).lookup(func.value)
        return bool(bindings) and all(
            b.kind == "assign" and isinstance(b.node, cst.Assign) and isinstance(b.node.value, cst.Call)
            and _waiting_transform(model.qualname(b.node.value.func)) for b in bindings)

    def _host_array(self, expr: cst.BaseExpression) -> bool:
        """A NumPy array by the value analysis, or a parameter to which every call of this
        file passes one (`run(W, v)` with `W = np.load(f)`)."""
        model = self.model
        if model.value(expr).shape is Shape.NUMPY:
            return True
        if not isinstance(expr, cst.Name):
            return False
        bindings = model.scope_of(expr).bindings.get(expr.value)
        func = model.function_of(expr)
        if func is None or not bindings or len(bindings) != 1 or bindings[0].kind != BindingKind.PARAM:
            return False
        passed = [argument_for(call, func, expr.value, shift) for call, shift in call_sites(model, func)]
        return bool(passed) and all(a is not None and model.value(a).shape is Shape.NUMPY for a in passed)


def _repeats(magic: str) -> bool:
    """`%timeit f(x)` runs the statement many times (unless told `-n 1`); `%time` once."""
    parts = magic.split()
    if not parts or parts[0] != "timeit":
        return False
    number = _timeit_option(parts, "-n")
    return number is None or number >= 100


def _runs_once(magic: str) -> bool:
    """`%time f(x)`, or `%timeit -n 1 -r 1 f(x)`: the statement runs once, so the first
    call of a fresh jit there holds its compile and nothing else (`%timeit`'s default is
    seven rounds, of which only the first compiles)."""
    parts = magic.split()
    if parts[:1] == ["time"]:
        return True
    return parts[:1] == ["timeit"] and _timeit_option(parts, "-n") == 1 and _timeit_option(parts, "-r") == 1


def _timeit_option(parts: list[str], flag: str) -> Optional[int]:
    """The count `%timeit` is given with `flag` (`-n 10` or `-n10`), or None."""
    for i, part in enumerate(parts):
        value = parts[i + 1] if part == flag and i + 1 < len(parts) else \
            part[len(flag):] if part.startswith(flag) and len(part) > len(flag) else None
        if value is not None and value.isdigit():
            return int(value)
    return None


def _sizes_from_data(call: cst.Call, spec) -> bool:
    """`jnp.argwhere(y > 0)` run eagerly with no `size=`: JAX reads the data on the host
    to size the result, which waits for it (measured: 4.7 s for a pending 3000x3000
    matmul and its argwhere, 3.5 s blocked, 0.07 s dispatched)."""
    if any(a.keyword is not None and a.keyword.value == spec.keyword or a.star for a in call.args):
        return False
    positional = [a for a in call.args if a.keyword is None]
    return spec.position is None or len(positional) <= spec.position


def _device_work(qualname: Optional[str]) -> bool:
    """A JAX function that leaves device work pending when it returns (not a key split)."""
    return array_module_function(qualname) and qualname not in INSTANT_WORK


def _aot_step(call: cst.Call) -> bool:
    """`f.lower(x)`, `f.trace(x)`, and `.compile()` of one of them (not `re.compile`)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in AOT_METHODS:
        return False
    if func.attr.value == "compile":
        return isinstance(func.value, cst.Call) and _aot_step(func.value)
    return True


def _compiled(call: cst.Call) -> bool:
    """`f.lower(x).compile()`: calling what it returns runs the program asynchronously."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "compile" and _aot_step(call)


def _names(node: cst.CSTNode):
    return [n for n in walk(node) if isinstance(n, cst.Name)]


def _mentions(node: cst.CSTNode, names) -> bool:
    return any(n.value in names for n in _names(node))


def _computes_nothing(info: FunctionInfo) -> bool:
    """A body of only `pass`, a docstring, `...`, or `return` of its own parameters:
    jit forwards the inputs, so no device work follows the call."""
    node = info.node
    if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock):
        return False
    params = set(info.all_params)

    def forwarded(expr) -> bool:
        if expr is None or (isinstance(expr, cst.Name) and (expr.value in params or expr.value == "None")):
            return True
        return isinstance(expr, cst.Tuple) and all(forwarded(el.value) for el in expr.elements)

    for stmt in node.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if isinstance(small, cst.Pass):
                continue
            if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.Ellipsis)):
                continue
            if isinstance(small, cst.Return) and forwarded(small.value):
                continue
            return False
    return True


def _waiting_transform(qualname: Optional[str]) -> bool:
    transform = TRANSFORMS.get(qualname) if qualname is not None else None
    return transform is not None and transform.waits_on_return
