"""JAX602: a jitted step's result copied to the host on every loop iteration (opt-in)."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from jaxlint.engine.callees import called_function
from jaxlint.engine.model import walk
from jaxlint.engine.scopes import target_names
from jaxlint.engine.waits import function_waits
from jaxlint.jax_api import (HOST_SYNC_FUNCTIONS, HOST_SYNC_METHODS, LOGGING_FUNCTIONS, LOGGING_METHODS,
                             LOGGING_MODULES)
from jaxlint.rules import _recompile as rc
from jaxlint.rules.base import Rule

# Blocks that run only on some iterations: a read inside one is logging every N steps.
_CONDITIONAL = (cst.If, cst.Else, cst.ExceptHandler, cst.Match, cst.IfExp, cst.While)


class HostSyncEveryStep(Rule):
    code = "JAX602"
    name = "host-sync-every-step"
    summary = ("a jitted step's result read on the host (float(loss), .item(), print) on every "
               "loop iteration stalls dispatch")
    severity = "warning"
    default = False

    def check(self):
        model = self.model
        steps: dict[cst.CSTNode, list] = {}
        for call, loop, callee in rc.jitted_calls_in_loops(model):
            if not isinstance(loop, (cst.For, cst.While)):
                continue  # a comprehension collects results; it logs nothing
            steps.setdefault(loop, []).append((call, callee, self._result_names(call)))
        for loop, calls in steps.items():
            inner = [(c, callee, names) for other, more in steps.items()
                     if other is not loop and loop in set(model.ancestors(other))
                     for c, callee, names in more]
            reads = []
            for sync, value in self._syncs(loop):
                step = next(((c, callee) for c, callee, names in calls + inner
                             if self._after(sync, c) and self._reads_result(value, c, names)), None)
                if step is not None:
                    reads.append((sync, step))
            # A copy the loop needs (an action for the environment) makes every iteration
            # wait anyway: logging another value of the same step costs nothing more.
            if any(not self._logged(sync) for sync, _ in reads) or self._waits_anyway(loop):
                continue
            for sync, (call, callee) in reads:
                if rc.repeating_loop(model, call) is not loop or not self._every_iteration(sync, loop):
                    continue
                yield self.report(sync, (
                    f"`{self.source(sync)}` copies `{callee.label}`'s result to the host on every "
                    f"iteration, only to log it: Python waits there until the step has finished on "
                    f"the device, so it cannot queue the next step (with its input) while this one "
                    f"runs; log every N steps (`if step % 100 == 0:`), or keep the arrays and "
                    f"convert them after the loop"), model.function_of(sync))

    def _waits_anyway(self, loop: cst.CSTNode) -> bool:
        """A function of this file that the loop calls on every iteration waits for a
        device value itself (`evaluate(w)` returning `float(acc)`, or stopping on an
        array): the iteration waits there regardless, so a logged copy costs nothing more."""
        model = self.model
        for node in walk(loop.body):
            if not isinstance(node, cst.Call) or not self._every_iteration(node, loop):
                continue
            callee = called_function(model, node)
            if callee is not None and not callee.is_lambda and function_waits(model, callee, self._copies_array):
                return True
        return False

    def _copies_array(self, call: cst.Call) -> bool:
        """A host copy (`float(x)`, `x.item()`, `print(x)`) of a value not known to be a
        Python value: it waits for the array's computation."""
        return any(not self.model.value(value).static for sync, value in self._host_reads(call))

    def _after(self, sync: cst.Call, call: cst.Call) -> bool:
        model = self.model
        return model.order[sync] > model.order[call] or sync in set(model.ancestors(call))

    def _logged(self, sync: cst.CSTNode, named: bool = True) -> bool:
        """The copy only goes to a log: `print(...)`, `logger.info(f"{loss.item()}")`,
        `history.append(float(loss))`, `writer.add_scalar("loss", loss.item(), step)`;
        or to a name that only logs read (`loss_value = loss.item()`, then
        `if step % 10 == 0: print(loss_value)`): the copy waits on every iteration all
        the same."""
        model = self.model
        node: cst.CSTNode = sync
        while True:
            if isinstance(node, cst.Call) and self._logging_call(node):
                return True
            parent = model.parent(node)
            if named and isinstance(parent, cst.Assign) and parent.value is node and len(parent.targets) == 1 \
                    and isinstance(parent.targets[0].target, cst.Name):
                return self._only_logged(parent.targets[0].target)
            if isinstance(parent, (cst.FormattedStringExpression, cst.FormattedString, cst.Element,
                                   cst.List, cst.Tuple, cst.DictElement, cst.Dict, cst.Arg,
                                   cst.BinaryOperation, cst.ConcatenatedString)) \
                    or (isinstance(parent, cst.Call) and node is not parent.func):
                node = parent
                continue
            return False

    def _only_logged(self, target: cst.Name) -> bool:
        """Every read of the name `target` binds (in its scope, it bound nowhere else)
        goes to a log."""
        model = self.model
        scope = model.scope_of(target)
        bindings = scope.lookup(target.value) or []
        if len(bindings) != 1:
            return False
        reads = [n for n in model.names_spelled(target.value)
                 if n is not target and model.scope_of(n).lookup(target.value) is bindings]
        return bool(reads) and all(self._logged(n, named=False) for n in reads)

    def _logging_call(self, call: cst.Call) -> bool:
        q = self.model.qualname(call.func)
        if q is not None:
            return q in LOGGING_FUNCTIONS or q.startswith(LOGGING_MODULES)
        return isinstance(call.func, cst.Attribute) and call.func.attr.value in LOGGING_METHODS

    # ------------------------------------------------------------------ helpers
    def _result_names(self, call: cst.Call) -> set[str]:
        """The names `loss` / `state, loss` that `... = step(...)` binds."""
        stmt = self.model.parent(call)
        if isinstance(stmt, cst.Assign) and stmt.value is call:
            return {n.value for t in stmt.targets for n in target_names(t.target)}
        return set()

    def _syncs(self, loop: cst.CSTNode) -> Iterator[tuple[cst.Call, cst.BaseExpression]]:
        """(call, the value it copies) for every host read in the loop body."""
        for node in walk(loop.body):
            if isinstance(node, cst.Call):
                yield from self._host_reads(node)

    def _host_reads(self, node: cst.Call) -> Iterator[tuple[cst.Call, cst.BaseExpression]]:
        """(node, the value it copies) when `node` copies a value to the host."""
        model = self.model
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in HOST_SYNC_METHODS \
                and not node.args and model.qualname(func) is None:
            yield node, func.value
        elif model.qualname(func) in HOST_SYNC_FUNCTIONS:
            for arg in node.args:
                if arg.keyword is None and not arg.star:
                    yield node, arg.value
                    if model.qualname(func) != "builtins.print":
                        break

    def _reads_result(self, value: cst.BaseExpression, call: cst.Call, names: set[str]) -> bool:
        """`loss`, `metrics["loss"]`, `step(x)` itself, or an f-string showing one of them."""
        if value is call:
            return True
        if isinstance(value, cst.FormattedString):
            return any(isinstance(p, cst.FormattedStringExpression)
                       and self._reads_result(p.expression, call, names) for p in value.parts)
        while isinstance(value, cst.Subscript):
            value = value.value
        if not isinstance(value, cst.Name) or value.value not in names:
            return False
        # The name still holds this call's result: nothing rebinds it in between.
        model = self.model
        bindings = model.scope_of(value).lookup(value.value) or []
        start, end = model.order[call], model.order[value]
        return not any(start < b.order < end and b.node is not model.parent(call) for b in bindings)

    def _every_iteration(self, sync: cst.Call, loop: cst.CSTNode) -> bool:
        """The read runs on each iteration: not under an `if`, an `except`, or an inner
        `while`, and not itself the test of one (`if float(loss) > 10: break` decides)."""
        model = self.model
        if rc.repeating_loop(model, sync) is not loop:
            return False
        for anc in model.ancestors(sync):
            if anc is loop:
                return True
            if isinstance(anc, _CONDITIONAL) or isinstance(anc, (cst.Comparison, cst.BooleanOperation)):
                return False
        return False
