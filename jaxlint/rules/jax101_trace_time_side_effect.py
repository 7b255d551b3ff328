"""JAX101: `print`, logging and file writes in traced code run at trace time only."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.constants import fixed_fill
from jaxlint.engine.model import walk
from jaxlint.rules._impurity import call_name, holds_tracer, trace_time_function, where
from jaxlint.rules.base import Rule

#: Calls that write to the console, a log or a file.
_PRINTS = frozenset({"builtins.print", "sys.stdout.write", "sys.stderr.write"})
_OPENS = frozenset({"builtins.open", "io.open"})
_LOG_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical",
                         "fatal", "log"})
_LOG_MODULES = ("logging", "absl.logging")
_GET_LOGGER = frozenset({"logging.getLogger", "absl.logging.get_absl_logger"})


class TraceTimeSideEffect(Rule):
    code = "JAX101"
    traced_code = True
    name = "trace-time-side-effect"
    summary = "print / logging / file writes in traced code run once, at trace time, on tracers"
    severity = "warning"
    confirm_kind = "print"

    def check(self):
        model = self.model
        for call in model.nodes(cst.Call):
            what = self._effect(call)
            if what is None:
                continue
            # grad alone runs the Python code on every call with concrete primal
            # values (GradTracer(primal=1.0, ...)): printing there works.
            func = trace_time_function(model, call, "abstract")
            if func is None:
                continue
            name = call_name(model, call)
            if what == "open":
                fix = ("write files outside the traced function, or from "
                       "jax.debug.callback / jax.experimental.io_callback")
            elif what == "log":
                fix = ("log from jax.debug.callback(lambda v: ..., x), or use jax.debug.print "
                       "to see values on every call")
            else:
                fix = 'use jax.debug.print("{}", x) to print values on every call'
            tracer = any(holds_tracer(model, a.value) and not _fills_only(model, a.value) for a in call.args)
            if what == "log" and self._announces_trace(call):
                continue
            if what == "open" and self._same_file_every_call(call):
                continue
            if what != "open" and not tracer:
                # A message with no traced value in it (a constant, `x.shape`) printed
                # at trace time is how JAX code announces a (re)trace: deliberate.
                continue
            if func.cached:
                shows = " shows tracers instead of values," if tracer else ""
                msg = (f"`{name}(...)` {where(func)} runs once, at trace time,{shows} and is "
                       f"skipped by later calls; {fix}")
            elif tracer:
                msg = (f"`{name}(...)` {where(func)} shows tracers, not values, on every call; {fix}")
            else:
                continue  # vmap reruns the Python code on every call: a static message is fine
            yield self.report(call, msg, func, call=name, cached=func.cached)

    def _effect(self, call: cst.Call) -> Optional[str]:
        model = self.model
        q = model.qualname(call.func)
        if q in _PRINTS:
            return "print"
        if q in _OPENS:
            return "open"
        if q is not None:
            module, _, attr = q.rpartition(".")
            if module in _LOG_MODULES and attr in _LOG_LEVELS:
                return "log"
            return None
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _LOG_LEVELS \
                and self._is_logger(func.value):
            return "log"
        return None

    def _same_file_every_call(self, call: cst.Call) -> bool:
        """`with open(path, "wb") as f: pickle.dump(config, f)` with no tracer in the
        path or in the block: the file is overwritten with static data, so writing it
        once per trace leaves what writing it on every call would."""
        model = self.model
        item = model.parent(call)
        block = model.parent(item) if isinstance(item, cst.WithItem) else None
        mode = [a.value for a in call.args[1:2] if a.keyword is None]
        mode += [a.value for a in call.args if a.keyword is not None and a.keyword.value == "mode"]
        if not isinstance(block, cst.With) or len(mode) != 1 or not isinstance(mode[0], cst.SimpleString):
            return False
        letters = mode[0].evaluated_value
        if "w" not in letters or "a" in letters or "+" in letters:
            return False
        return not any(isinstance(n, cst.BaseExpression) and holds_tracer(model, n)
                       for part in (call, block.body) for n in walk(part))

    def _announces_trace(self, call: cst.Call) -> bool:
        """`logging.info("train_step(batch=%s)", batch)` in `train_step`: a log record
        that names the function it is in, the way a call is written, announces each
        trace of it; the tracers it shows give the shapes the trace is for. Logged once
        per compile on purpose."""
        function = self.model.function_of(call)
        message = call.args[0].value if call.args and call.args[0].keyword is None else None
        if function is None or function.is_lambda or not isinstance(message, cst.SimpleString):
            return False
        return f"{function.name}(" in message.evaluated_value

    def _is_logger(self, expr: cst.BaseExpression) -> bool:
        """`logging.getLogger(...)`, or a name bound only to it."""
        model = self.model
        if isinstance(expr, cst.Call):
            return model.qualname(expr.func) in _GET_LOGGER
        if not isinstance(expr, cst.Name):
            return False
        bindings = model.scope_of(expr).lookup(expr.value)
        if not bindings:
            return False
        for b in bindings:
            if b.kind != "assign" or not isinstance(b.node, (cst.Assign, cst.AnnAssign)):
                return False
            value = b.node.value
            if not (isinstance(value, cst.Call) and model.qualname(value.func) in _GET_LOGGER):
                return False
        return True


def _fills_only(model, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """Tracers of arrays of one Python number (`jnp.zeros((1, n))`, a tuple of them, a
    name bound only to such): printed at trace time they show their shape and dtype,
    which is all they hold, so the print shows what a print of values would."""
    if depth > 4:
        return False
    if not holds_tracer(model, expr) or fixed_fill(model, expr):
        return True
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(_fills_only(model, el.value, depth + 1) for el in expr.elements)
    if isinstance(expr, cst.Name):
        values = model.assigned_values(expr)
        return bool(values) and all(_fills_only(model, v, depth + 1) for v in values)
    return False
