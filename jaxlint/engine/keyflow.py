"""Key flow, part of the file's model: where a PRNG key is drawn from, split, and
rebound. JAX501-JAX503 read it (`key_findings_for`); no rule walks statements itself.

A JAX key is an immutable value, so a key held by a name only changes when the
name is rebound; passing it to any function cannot change it. The analysis runs
over each body (the module, each `def`) in statement order and keeps, per key
expression (`key`, `keys[0]`), the last call that consumed it: a draw
(`jax.random.normal(key)`) or a split. A second consumer before the name is
rebound reuses the key. Branches of an `if` start from the same state, and a key
spent on any path that reaches a use is reported ("may" reuse: on that path the
numbers really repeat). Paths that `return`, `raise`, `break` or `continue` end.
The walk over statements is `engine.flow`, shared with the value analysis.

Two consumers of one key are reported only where their numbers meet: where a
statement reads the numbers of values derived from both (an expression, a call, a
`return`, a container). Draws from one fixed key in separate notebook cells whose
results are never combined are separate demos, and a value whose numbers are never read
makes nothing meet: one read only for its shape or finiteness, passed only to a helper
that never reads its numbers, to a call a test expects to raise, or to a check that holds
whatever the numbers are (a bound, a constant, one computation compared with itself).
`_Meetings` follows the values, per body, with the same walker. A comment at the second use that says the
repeat is meant (`# same key: identical init`) silences a repeat of the same draw (the same
call with the same arguments) too; two different draws from one key stay reported.

The result is computed once per file and shared by the three rules.
"""

from __future__ import annotations

import enum
import re
import weakref
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from jaxlint.engine.callees import argument_for, called_function, function_of_callable, passed_arguments
from jaxlint.engine.constants import fixed_fill, python_number, zero_everywhere
from jaxlint.engine.evaluate import _is_staticmethod
from jaxlint.engine.flow import Flow, body
from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.model import FileModel, children, walk
from jaxlint.engine.scopes import target_names
from jaxlint.engine.tracing import PARTIAL
from jaxlint.engine.unused import never_called
from jaxlint.jax_api import (ABSTRACT_METHODS, ALIGNING_SAMPLERS, CHOOSING_CALLS, CLOCK_FUNCTIONS,
                             LAX_LOOP_BODIES, LEAF_ALIGNING_SAMPLERS, PER_LEAF_MAPS, RANDOM_SAMPLERS, RANDOM_SPLITTERS,
                             RANDOMNESS_OFF_FLAGS, SHAPE_ONLY_CALLS, SHAPE_ONLY_METHODS, STATIC_ATTRIBUTES,
                             STRUCTURE_ONLY_CALLS, STRUCTURE_ONLY_METHODS, TIMEIT_FUNCTIONS, TRANSFORMS,
                             FINITENESS_CALLS, ARRAY_OWN_METHODS, EQUALITY_ASSERT_METHODS,
                             EQUALITY_CHECKS,
                             TRUTH_REDUCTIONS)
from jaxlint.notebook import timed_magic

# A comment where a key is made that says its uses are meant to share it.
_SHARED = re.compile(r"\bcorrelated\b|\b(shared|same)\b.*\b(across|between|for (all|every|each|both))\b", re.I)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
# Methods that store their arguments in the object they are called on.
_STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})
# A function named as a maker of fake data (`get_fake_batch`, `mock_inputs`): its draws
# stand for data whose shapes and dtypes matter, not its numbers.
_STAND_IN = re.compile(r"(^|_)(fake|mock)(_|$)", re.I)
# A comment that says a key is used again on purpose.
_DELIBERATE = re.compile(
    r"\b(same|shared)\s+(prng\s*)?(key|subkey|rng|seed|randomness|random\s+numbers|numbers|noise|init"
    r"|results?|values|draws|samples|arguments|outputs?)"
    r"|\balways\s+(be\s+)?the\s+same\b"  # `# this will always be the same...`
    r"|\bdeliberate|\bon purpose\b|\bintentional", re.I)


class KeyEvent(str, enum.Enum):
    """What a call does to a key: draw numbers from it, or split it into new keys."""

    SAMPLE = "sample"
    SPLIT = "split"

    def __str__(self) -> str:
        return self.value


@dataclass(eq=False)
class KeyUse:
    """One call that consumes a key: a draw or a split."""

    call: cst.Call
    key: str  # the key expression: "key", "keys[0]"
    base: str  # the name whose rebinding gives a new key
    kind: KeyEvent
    qualname: str  # "jax.random.normal"
    function: Optional[FunctionInfo]
    order: int
    # For a key rebuilt on each call of its function: the call that builds it (`PRNGKey(seed)`).
    seed: Optional[cst.Call] = None
    # For a key that is a parameter's default (`rkey=PRNGKey(3)`): the parameter. Python
    # builds a default once, when the `def` runs, so each call that omits it shares the key.
    default_of: Optional[str] = None
    # For a key rebuilt from a literal seed: the key parameter its function is given and
    # never reads (`def encode(self, x, rng)` drawing from `key(0)`).
    unread_key: Optional[str] = None


@dataclass(eq=False)
class KeyFinding:
    code: str  # "JAX501" | "JAX502" | "JAX503"
    use: KeyUse
    previous: Optional[KeyUse] = None
    loop: Optional[cst.CSTNode] = None
    # For a draw from a key attribute only `__init__` sets (`self.rng_key`): the call,
    # in a loop, of the method that makes it (`net.apply(x)`).
    through: Optional[KeyUse] = None
    # For a key consumed at the end of one iteration and again in the next (the key a
    # `key, k = split(key)` at the top of the loop carries over): the loop.
    carried: Optional[cst.CSTNode] = None


_CACHE: "weakref.WeakKeyDictionary[FileModel, tuple]" = weakref.WeakKeyDictionary()


def key_findings(model: FileModel) -> list[KeyFinding]:
    return _flow(model)[1]


def key_consumers(model: FileModel) -> dict:
    """Functions of this file -> the (parameter, dict key or None, event) of each key
    parameter they draw from or split, directly or through helpers."""
    return _flow(model)[0].consumers


def key_uses(model: FileModel) -> list[KeyUse]:
    """Every call that consumes a key: a draw, a split, or a call of a function of this
    file that draws from (or splits) the key passed to it, in file order."""
    flow = _flow(model)[0]
    uses = [use for uses in flow.uses_at.values() for use in uses]
    return sorted(uses, key=lambda use: use.order)


def _flow(model: FileModel) -> tuple:
    found = _CACHE.get(model)
    if found is None:
        flow = _KeyFlow(model)
        found = _CACHE[model] = (flow, flow.run())
    return found


def key_findings_for(model: FileModel, code: str):
    """The key-flow findings that belong to one rule."""
    return [found for found in key_findings(model) if found.code == code]


def line_of(model: FileModel, node: cst.CSTNode) -> int:
    """The line of a node, for messages that point at an earlier call."""
    return model.line_of(node)


def _key_expr(node: cst.BaseExpression) -> Optional[tuple[str, str]]:
    """(`keys[0]`, `keys`) for a name or a name indexed by a constant; else None."""
    if isinstance(node, cst.Name):
        return node.value, node.value
    if (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)
            and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)):
        index = node.slice[0].slice.value
        if isinstance(index, (cst.Integer, cst.SimpleString)):
            return f"{node.value.value}[{index.value}]", node.value.value
        if (isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus)
                and isinstance(index.expression, cst.Integer)):
            return f"{node.value.value}[-{index.expression.value}]", node.value.value
    return None


def _key_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "key":
            return arg.value
    if call.args and call.args[0].keyword is None and call.args[0].star == "":
        return call.args[0].value
    return None


class _KeyFlow(Flow):
    # Assume a loop body runs: joining in the zero-iteration path would report keys
    # spent before the loop and re-split in it.
    loop_passes = 1
    zero_iterations = False

    def __init__(self, model: FileModel):
        self.model = model
        self.findings: list[KeyFinding] = []
        # Uses grouped by the statement (or compound-statement header) that holds them.
        self.uses_at: dict[cst.CSTNode, list[KeyUse]] = {}
        # Names that a call can rebind behind our back (`global` / `nonlocal`).
        self.shared_names: set[str] = set()
        # Per body: the sets of consumers whose numbers reach one statement.
        self._meetings: dict = {}
        # Uses inside a lambda that runs where it is made, as uses of its enclosing function.
        self.applied_lambda_uses: list[KeyUse] = []
        # Functions of this file -> the key parameters they draw from (`_consuming_helpers`).
        self.consumers: dict[FunctionInfo, tuple] = {}
        # Inside a second pass over a loop body (`loop`): only reuse across iterations is new.
        self._again = 0
        # The states at each `return` of the body being walked (`_carry_pass`).
        self._returned: list = []
        self._loops: list = []
        # Objects whose attributes hold keys (`self` for `self.rng`), and per statement the
        # ones a call in it may change (`_touching`).
        self.attribute_objects: set[str] = set()
        self.touched_at: dict[cst.CSTNode, set[str]] = {}

    # ---------------------------------------------------------------- collect
    def collect(self) -> None:
        model = self.model
        for scope in [model.module_scope] + [f.scope for f in model.functions]:
            self.shared_names |= scope.globals | scope.nonlocals
        # Functions of this file that draw from (or split) a key parameter consume the key
        # passed to them: `sample(key)` twice repeats the numbers, and so does
        # `model.init(rng, rng)` when both parameters reach a draw. Found to a fixpoint,
        # so a helper calling a helper counts too.
        consumers: dict[FunctionInfo, tuple] = {}
        calls = list(model.nodes(cst.Call))
        for _ in range(6):
            self.uses_at = {}
            self.applied_lambda_uses = []
            for call in calls:
                self._collect_call(call, consumers)
            found = self._consuming_helpers()
            if found == consumers:
                break
            consumers = found
        self.consumers = consumers
        if self.attribute_objects:
            for call in calls:
                touched = _touching(model, call, self.attribute_objects)
                anchor = self._anchor(call) if touched else None
                if anchor is not None:
                    self.touched_at.setdefault(anchor, set()).update(touched)

    def _consuming_helpers(self) -> dict:
        """Functions -> the (parameter, dict key or None, event) of each parameter that
        reaches a draw or split unchanged: `key`, or `rngs["dropout"]` of a parameter
        `rngs`. A nested function its maker runs (`jax.grad(loss_fn)(params)`) uses the
        maker's keys it closes over as the maker's own."""
        out: dict = {}
        for uses in [*self.uses_at.values(), self.applied_lambda_uses]:
            for use in uses:
                func = self._owner(use)
                if func is None:
                    continue
                entry = self._parameter_entry(func, use)
                # One use per parameter: a helper that uses its key twice is reported inside.
                if entry is not None and entry[:2] not in {e[:2] for e in out.get(func, ())}:
                    out[func] = out.get(func, ()) + (entry,)
        return out

    def _owner(self, use: KeyUse) -> Optional[FunctionInfo]:
        """The function whose parameter `use`'s key is: its own, or that of the function
        that runs the nested def drawing from a key it closes over."""
        func = use.function
        for _ in range(4):
            if func is None or func.is_lambda:
                return None
            if use.base in func.scope.bindings or func.enclosing is None:
                return func
            if not _runs_nested(self.model, func):
                return None
            func = func.enclosing
        return None

    def _parameter_entry(self, func: FunctionInfo, use: KeyUse) -> Optional[tuple]:
        sub = None
        if use.key != use.base:
            sub = _string_index(use.key)
            if sub is None:
                return None
        params = func.all_params[1:] if func.is_method and not _is_staticmethod(func) else func.all_params
        if use.base not in params or use.base in func.scope.globals \
                or use.base in (func.vararg, func.kwarg):
            return None
        if any(b.kind != "param" for b in func.scope.bindings.get(use.base, [])):
            return None  # rebound in the helper: it may split first
        return use.base, sub, use.kind

    def _collect_call(self, call: cst.Call, consumers: dict) -> None:
        model = self.model
        q = model.qualname(call.func)
        if q in RANDOM_SAMPLERS or q in RANDOM_SPLITTERS:
            if q in RANDOM_SAMPLERS and _constant_draw(model, call, q):
                return  # the same numbers whatever the key: nothing is spent
            kind = KeyEvent.SAMPLE if q in RANDOM_SAMPLERS else KeyEvent.SPLIT
            arg = _key_argument(call)
            if arg is not None:
                self._add_use(call, arg, kind, q)
            return
        helper = called_function(model, call) if consumers else None
        shift = _receiver_shift(helper, call) if helper is not None else 0
        if helper is None and consumers:
            helper, shift = _parameter_callee(model, call)
        if helper is None or helper not in consumers or _through_partial(model, call.func):
            return
        for param, sub, kind in consumers[helper]:
            arg = argument_for(call, helper, param, shift)
            if sub is not None:
                arg = _dict_entry(arg, sub)
            if arg is not None:
                self._add_use(call, arg, kind, helper.name)

    def _add_use(self, call: cst.Call, arg: cst.BaseExpression, kind: KeyEvent, q: str) -> None:
        model = self.model
        key = _key_expr(arg) or self._attribute_key(arg)
        if key is None or key[1] in self.shared_names or key[1] in ("None", "True", "False"):
            return  # a constant is no key (`reader(path, None)`: the helper makes its own)
        # Per leaf, only a direct draw of numbers: a permutation (or a helper) may share its
        # key across leaves on purpose, to keep them aligned.
        anchor = self._anchor(call, key[1] if q in RANDOM_SAMPLERS and q not in LEAF_ALIGNING_SAMPLERS else None)
        base = arg.value if isinstance(arg, cst.Subscript) else arg  # `keys` in `keys[0]`
        if model.comprehension_variable(base):  # a new key each time
            return
        if anchor is None:
            # `grad(lambda p: loss(p, key))(params)`: the lambda runs where it is made, so
            # its use of the enclosing function's key is that function's (for summaries).
            func = model.function_of(call)
            if func is not None and func.is_lambda and func.enclosing is not None \
                    and _applied_at_once(model, func.node):
                self.applied_lambda_uses.append(
                    KeyUse(call, key[0], key[1], kind, q, func.enclosing, model.order[call]))
            return
        # The function whose statement runs the call (a per-leaf lambda's runs in its maker's).
        use = KeyUse(call, key[0], key[1], kind, q, model.function_of(anchor), model.order[call])
        self.uses_at.setdefault(anchor, []).append(use)

    def _attribute_key(self, arg: cst.BaseExpression) -> Optional[tuple[str, str]]:
        """(`self.rng`, `self.rng`) for a key an object holds as a plain data attribute:
        `self.rng` where the class sets it (a field, `self.rng = ...`) and defines no
        method or property of that name, or `state.key` of an object of a class that is
        not this file's. The key changes only where the attribute, or the object, is
        rebound, or where a call may do it (`_touching`)."""
        if not isinstance(arg, cst.Attribute) or not isinstance(arg.value, cst.Name):
            return None
        model = self.model
        obj, attr = arg.value.value, arg.attr.value
        bindings = model.scope_of(arg).lookup(obj)
        if not bindings or any(b.kind in ("import", "class", "def") for b in bindings):
            return None
        from jaxlint.engine.callees import instance_class
        klass = instance_class(model, arg.value)
        if klass is not None:
            family = [klass, *klass.relatives]
            if any(model.class_method(c, attr) is not None for c in family):
                return None  # a method or property: it may make a new key each time
            if not any(attr in c.attribute_sites or attr in c.fields for c in family):
                return None
        elif model.class_of_self(arg.value) is not None:
            return None
        name = f"{obj}.{attr}"
        self.attribute_objects.add(obj)
        return name, name

    def _anchor(self, call: cst.Call, base: Optional[str] = None) -> Optional[cst.CSTNode]:
        """The statement whose execution runs `call`; None inside a lambda, except one
        that a per-leaf map runs right there on a key it closes over."""
        for anc in self.model.ancestors(call):
            if isinstance(anc, cst.Lambda):
                func = self.model.function_of(call)
                if base is None or self._per_leaf_map(anc) is None or func is None \
                        or func.node is not anc or base in func.scope.bindings:
                    return None
                continue
            if isinstance(anc, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                return anc
        return None

    # ---------------------------------------------------------------- flow
    def run(self) -> list[KeyFinding]:
        from jaxlint.engine.stored_keys import stored_key_findings

        self.collect()
        if not self.uses_at:
            return stored_key_findings(self)
        # Each body is walked on its own: only those that consume a key need it.
        users = {use.function for uses in self.uses_at.values() for use in uses}
        if None in users:
            self.block(self.model.module.body, {})
        for func in self.model.functions:
            if func in users and isinstance(func.node, cst.FunctionDef):
                self._returned = []
                self.block(body(func.node), {})
                self._carry_pass(func)
        self.findings.extend(stored_key_findings(self))
        # A function nothing runs draws nothing: its reuse repeats no numbers.
        dead: dict = {}
        for found in self.findings:
            if found.use.function not in dead:
                dead[found.use.function] = never_called(self.model, found.use.function)
        self.findings = [found for found in self.findings if not dead[found.use.function]]
        self.findings.sort(key=lambda f: f.use.order)
        return self.findings

    # The walk is the shared `Flow`; a state maps each key expression to its
    # consumers since it was bound (in order), and None is a path that has ended.
    def copy(self, s: Optional[dict]) -> Optional[dict]:
        return None if s is None else dict(s)

    def join(self, a: dict, b: dict) -> dict:
        """Paths meeting: a key spent on either path is spent ("may" reuse)."""
        out = dict(b)
        for key, uses in a.items():
            both = set(uses) | set(out.get(key, ()))
            out[key] = tuple(sorted(both, key=lambda u: u.order))
        return out

    def ended(self, s: Optional[dict]) -> bool:
        return s is None

    def end(self, s: Optional[dict]) -> None:
        return None

    def resume(self, s: Optional[dict], entry: dict) -> dict:
        return dict(entry)

    def loop(self, node, s: Optional[dict]) -> dict:
        """One pass, whose state goes on after the loop; then the body once more from where
        the pass ended, for keys carried into the next iteration: `key, k = split(key)` at
        the top splits again the key that `_, hk = split(key)` (or a helper) consumed at the
        bottom of the last iteration, so `k` is `hk`. The second pass reports only such
        pairs (the earlier consumer later in the body); the rest it found already."""
        after = super().loop(node, s)
        entry = self.copy(after)
        if not self.ended(entry) and self._carried_keys(node, entry):
            self._again += 1
            self._loops.append(node)
            try:
                self.block(body(node), self.iteration(node, entry))
            finally:
                self._again -= 1
                self._loops.pop()
        return after

    def _carried_keys(self, node, state: dict) -> bool:
        """Whether a key consumed in this loop's body is still held when the body ends."""
        return any(use.order > self.model.order[node] and node in set(self.model.ancestors(use.call))
                   for uses in state.values() for use in uses)

    def simple(self, small: cst.BaseSmallStatement, state: dict) -> dict:
        self._forget_touched(small, state)
        self.events(small, state)
        self._forget_touched(small, state)
        self.rebind_small(small, state)
        if isinstance(small, cst.Return) and not self._again:
            self._returned.append((small, dict(state)))
        return state

    def _carry_pass(self, func: FunctionInfo) -> None:
        """The body of a `lax.scan` / `fori_loop` / `while_loop` once more, from the state
        its `return` leaves, for the keys it returns in the carry under the names it
        unpacks them to (`key, acc = carry` ... `return (key, acc), y`): the next
        iteration consumes that key again, as `loop` does for a Python loop."""
        context = next((c for c in func.contexts.values() if c.via == "body" and c.transforms
                        and c.transforms[0] in LAX_LOOP_BODIES), None)
        if context is None or not self._returned:
            return
        index = 1 if context.transforms[0] == "lax.fori_loop" else 0
        params = func.positional
        if len(params) <= index or func.vararg is not None:
            return
        param = params[index]
        stmts = body(func.node)
        for ret, state in self._returned:
            carry = ret.value
            if context.transforms[0] == "lax.scan":
                if not (isinstance(carry, cst.Tuple) and len(carry.elements) == 2):
                    continue
                carry = carry.elements[0].value
            names, start = _carried_names(self.model, stmts, param, carry)
            entry = {k: uses for k, uses in state.items() if uses[0].base in names}
            if not entry:
                continue
            self._again += 1
            self._loops.append(context.origin if isinstance(context.origin, cst.Call) else func.node)
            try:
                self.block(stmts[start:], entry)
            finally:
                self._again -= 1
                self._loops.pop()

    def header(self, node: cst.CSTNode, state: dict) -> dict:
        self._forget_touched(node, state)
        self.events(node, state)
        self._forget_touched(node, state)
        if isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None:
                    for name in target_names(item.asname.name):
                        self.rebind(name.value, state)
        return state

    def iteration(self, loop: cst.CSTNode, state: dict) -> dict:
        if isinstance(loop, cst.For):
            for name in target_names(loop.target):
                self.rebind(name.value, state)
        return state

    def handler(self, handler: cst.ExceptHandler, state: dict) -> dict:
        if handler.name is not None:
            for name in target_names(handler.name.name):
                self.rebind(name.value, state)
        return state

    def define(self, node: cst.CSTNode, state: dict) -> dict:
        self.events(node, state)  # decorators, defaults
        self.rebind(node.name.value, state)
        return state

    def rebind_small(self, small: cst.CSTNode, state: dict) -> None:
        targets = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            targets = [small.target]
        elif isinstance(small, cst.Del):
            targets = [small.target]
        for target in targets:
            for name in _bound_bases(target):
                self.rebind(name, state)

    @staticmethod
    def rebind(name: str, state: dict) -> None:
        """`name` holds a new value: its keys, and those of its attributes, are new."""
        attrs = name + "."
        for key in [k for k, uses in state.items() if uses[0].base == name or uses[0].base.startswith(attrs)]:
            del state[key]

    def _forget_touched(self, anchor: cst.CSTNode, state: dict) -> None:
        """A call at `anchor` may set the key attributes of the objects it touches."""
        for obj in self.touched_at.get(anchor, ()):
            self.rebind(obj, state)

    def events(self, anchor: cst.CSTNode, state: dict) -> None:
        for use in self.uses_at.get(anchor, ()):
            spent = state.get(use.key, ())
            if (use.kind is KeyEvent.SPLIT and (_keys_unused(self.model, use.call)
                                                or _children_undrawn(self.model, use))) \
                    or _numbers_unread(self.model, use):
                state[use.key] = spent + (use,)
                continue
            earlier = [p for p in spent if not self._exclusive(p, use) and not _numbers_unread(self.model, p)
                       and not (p.kind is KeyEvent.SPLIT and _children_undrawn(self.model, p))]
            if self._again:
                # The next iteration: only a consumer later in the body, from the last one,
                # that made the very subkey this split makes again (`_, hk = split(key)` at
                # the bottom, `key, k = split(key)` at the top: `k` is `hk`). A draw or a
                # split whose subkeys differ in use leaves no identical numbers.
                earlier = [p for p in earlier if p.order > use.order and p.call is not use.call
                           and _same_subkey(self.model, p, use)]
                previous = self._meeting_previous(earlier, use) if earlier else None
                if previous is not None and not any(f.use is use and f.previous is previous for f in self.findings):
                    code = "JAX503" if previous.kind is KeyEvent.SPLIT else "JAX501"
                    self.findings.append(KeyFinding(code, use, previous, carried=self._loops[-1]))
                state[use.key] = spent + (use,)
                continue
            previous = self._meeting_previous(earlier, use) if earlier else None
            if previous is not None:
                code = "JAX503" if previous.kind is KeyEvent.SPLIT else "JAX501"
                self.findings.append(KeyFinding(code, use, previous))
            else:  # an earlier use whose numbers never meet this one's leaves the loop's repeat
                loop = self.loop_without_rebinding(use)
                if loop is not None and self.repeats_meet(use, loop):
                    self.findings.append(KeyFinding("JAX502", use, None, loop))
            state[use.key] = spent + (use,)

    def _meeting_previous(self, earlier: list, use: KeyUse) -> Optional[KeyUse]:
        """The latest earlier consumer whose numbers meet `use`'s: then the code treats
        as independent what is not. None when they never meet, or a comment says the
        repeat is meant."""
        if _stand_in(self.model, use):
            return None
        deliberate = _says_deliberate(self.model, use)
        if any(_recomputes(self.model, previous, use) for previous in earlier):
            return None  # the value the name already held: it meets nothing the first did not
        # `f(key)[0]`, `f(key)[1]`: other parts of the value the earlier call made, drawn once.
        earlier = [p for p in earlier if not _parts_of_one_value(self.model, p, use)]
        meetings = [{_consumer(e) for e in met} for met in self._meetings_of(use.function)]
        for previous in reversed(earlier):
            if _aligned_pair(self.model, previous, use):
                continue
            # A comment at either draw of a repeated one (`# the same key gives the same
            # numbers` above the first) says the repeat is what the code shows.
            if _same_draw(self.model, previous, use) and (deliberate or _says_deliberate(self.model, previous)):
                continue
            # `eval_labels = uniform(key, s)` after `train_labels = uniform(key, s)`: a copy
            # of the earlier draw's numbers kept beside them under another name, whose tie
            # to `logits` is reported at the earlier draw already.
            if any(copied.order > previous.order and _same_draw(self.model, copied, use)
                   and _another_name(self.model, copied, use)
                   and any(previous in met and copied in met for met in meetings) for copied in earlier):
                continue
            if any(previous in met and use in met for met in meetings):
                return previous
        return None

    def repeats_meet(self, use: KeyUse, loop: cst.CSTNode, anchor: Optional[cst.CSTNode] = None) -> bool:
        """Whether the numbers `use` draws on one iteration of `loop` meet those it draws
        on another: carried to the next iteration, gathered in one container, or
        stored on one object. A loop over test cases that draws an input, checks it and
        drops it repeats a fixed input, which no two cases share. A comprehension
        gathers every iteration's value in one list, so they always meet. `anchor`
        stands for `use` where another call (a method that draws) runs it."""
        if _says_deliberate(self.model, use) or _aligned_shuffle(self.model, use, loop):
            return False
        if isinstance(loop, _COMPREHENSIONS) or isinstance(loop, cst.Call):
            return True  # a per-leaf map (a Call) also gathers every leaf's value in one tree
        if _printed_each_repeat(self.model, use, loop):
            return True
        function = self.model.function_of(loop)
        if anchor is None:
            meetings = self._meetings_of(function)
        else:
            uses_at = dict(self.uses_at)
            uses_at[anchor] = [*uses_at.get(anchor, ()), use]
            stmts = self.model.module.body if function is None else body(function.node)
            meetings = _Meetings(self.model, uses_at).run(stmts)
        return any(_iterations_meet(met, use, loop, self.model) for met in meetings)

    def _meetings_of(self, function: Optional[FunctionInfo]) -> list:
        if function not in self._meetings:
            stmts = self.model.module.body if function is None else body(function.node)
            self._meetings[function] = _Meetings(self.model, self.uses_at).run(stmts)
        return self._meetings[function]

    def _exclusive(self, a: KeyUse, b: KeyUse) -> bool:
        """Whether two calls sit in different arms of one choice: a conditional
        expression, or `lax.select(p, a, b)`, which keeps one of its arms' numbers."""
        arms_a = {}
        child = a.call
        for anc in self.model.ancestors(a.call):
            if self._arms(anc) and child in self._arms(anc):
                arms_a[anc] = child
            child = anc
        child = b.call
        for anc in self.model.ancestors(b.call):
            if anc in arms_a and arms_a[anc] is not child and child in self._arms(anc):
                return True
            child = anc
        return False

    def _arms(self, node: cst.CSTNode) -> tuple:
        if isinstance(node, cst.IfExp):
            return node.body, node.orelse
        if isinstance(node, cst.Call):
            first = CHOOSING_CALLS.get(self.model.qualname(node.func))
            if first is not None and not any(arg.star or arg.keyword for arg in node.args):
                return tuple(node.args[first:])
        return ()

    # ---------------------------------------------------------------- loops
    def loop_without_rebinding(self, use: KeyUse) -> Optional[cst.CSTNode]:
        """The loop that runs `use` on every iteration with the same key, if any."""
        model = self.model
        loop = self._loop_of(use.call)
        # A `return` in a function mapped per leaf ends one leaf's call, not the map.
        if loop is None or not isinstance(loop, cst.Call) and self._ends_after(use.call, loop) \
                or self._one_iteration(use.call, loop):
            return None
        if isinstance(loop, _COMPREHENSIONS):
            return None if use.base in _comprehension_targets(loop) else loop
        mapped = use.function.node if use.function is not None else None
        if isinstance(loop, cst.Call) and isinstance(mapped, cst.FunctionDef) \
                and self._per_leaf_map(mapped) is loop and (
                use.base in use.function.scope.bindings
                or use.qualname not in RANDOM_SAMPLERS or use.qualname in LEAF_ALIGNING_SAMPLERS):
            # The mapped function's own parameter (a leaf of a tree of keys); or, per leaf,
            # not a direct draw of numbers: a permutation (or a helper) may share its key
            # across leaves on purpose, to keep them aligned (as for a lambda, `_add_use`).
            return None
        obj, dot, _attr = use.base.partition(".")
        if dot and self._object_changes_in(obj, use.base, loop):
            return None
        bindings = model.scope_of(use.call).lookup(obj) or []
        for b in bindings:
            if _iterates_mapping_keys(b.node, obj):
                continue
            if b.node is loop or loop in set(model.ancestors(b.node)):
                return None
        return loop

    def _object_changes_in(self, obj: str, attribute: str, loop: cst.CSTNode) -> bool:
        """Whether the loop sets `attribute` (`self.key = ...`), or runs a call that may."""
        if any(node is loop or loop in set(self.model.ancestors(node))
               for node, objs in self.touched_at.items() if obj in objs):
            return True
        for node in walk(loop):
            targets = []
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
                targets = [node.target]
            if any(attribute in _bound_bases(t) for t in targets):
                return True
        return False

    def _loop_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The innermost loop that repeats `node` (in the same function)."""
        child = node
        for anc in self.model.ancestors(node):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
                return self._per_leaf_map(anc)
            if isinstance(anc, (cst.For, cst.While)) and child is anc.body:
                return anc
            # The first iterable of a comprehension is evaluated once, before it loops.
            if isinstance(anc, _COMPREHENSIONS) and not (
                    child is anc.for_in and self._in_first_iterable(node, anc.for_in)):
                return anc
            child = anc
        return None

    def _per_leaf_map(self, func: cst.CSTNode) -> Optional[cst.Call]:
        """`jax.tree_util.tree_map(lambda p: ..., params)`, or a `def` passed by name
        (`tree_map(perturb, params)`): the function runs once per leaf."""
        model = self.model
        if isinstance(func, cst.FunctionDef):
            info = model.function_info(func)
            if info is None or info.enclosing is None:
                return None  # a module-level def may be mapped by its callers with other keys
            refs = [name for name in model.names_spelled(func.name.value)
                    if name is not func.name and model.resolve_function(name) is info]
            # Mapped per leaf, and run no other way (a call, another transform).
            arg = model.parent(refs[0]) if len(refs) == 1 else None
            call = model.parent(arg) if isinstance(arg, cst.Arg) else None
            if isinstance(call, cst.Call) and call.args and call.args[0] is arg and arg.keyword is None \
                    and model.qualname(call.func) in PER_LEAF_MAPS:
                return call
            return None
        arg = model.parent(func)
        call = model.parent(arg) if isinstance(arg, cst.Arg) else None
        if isinstance(func, cst.Lambda) and isinstance(call, cst.Call) and call.args \
                and call.args[0] is arg and arg.keyword is None \
                and model.qualname(call.func) in PER_LEAF_MAPS:
            return call
        return None

    def _one_iteration(self, call: cst.Call, loop: cst.CSTNode) -> bool:
        """The call runs on one iteration only: under `if t == 0` (or `if i == n - 1`)
        with `t` the loop's own index."""
        if not isinstance(loop, cst.For):
            return False
        index = {n.value for n in target_names(loop.target)}
        child: cst.CSTNode = call
        for anc in self.model.ancestors(call):
            if anc is loop:
                return False
            if isinstance(anc, cst.If) and child is anc.body and _pins(anc.test, index):
                return True
            child = anc
        return False

    def _in_first_iterable(self, node: cst.CSTNode, comp_for: cst.CompFor) -> bool:
        return node is comp_for.iter or comp_for.iter in set(self.model.ancestors(node))

    def _ends_after(self, call: cst.Call, loop: cst.CSTNode) -> bool:
        """The call runs at most once: it is in a `return`/`raise`, or one follows it."""
        model = self.model
        child: cst.CSTNode = call
        for anc in model.ancestors(call):
            if anc is loop:
                return False
            if isinstance(child, (cst.Return, cst.Raise)):
                return True
            if isinstance(anc, (cst.IndentedBlock, cst.Module)) and child in anc.body:
                rest = anc.body[anc.body.index(child) + 1:]
                if any(isinstance(s, cst.SimpleStatementLine)
                       and any(isinstance(x, (cst.Return, cst.Raise, cst.Break)) for x in s.body)
                       for s in rest):
                    return True
            child = anc
        return False


def _same_subkey(model: FileModel, previous: KeyUse, use: KeyUse) -> bool:
    """Two `jax.random.split` calls of one key, each unpacked into names, that bind one
    position to a name (not `_`, not the key itself) in both: the same subkey twice."""
    def unpacked(u: KeyUse):
        if u.qualname not in RANDOM_SPLITTERS or u.kind is not KeyEvent.SPLIT:
            return None
        assign = model.parent(u.call)
        if not (isinstance(assign, cst.Assign) and assign.value is u.call and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, (cst.Tuple, cst.List))):
            return None
        rest = [model.module.code_for_node(a.value) for a in u.call.args[1:]]
        return [getattr(e.value, "value", None) for e in assign.targets[0].target.elements], rest

    a, b = unpacked(previous), unpacked(use)
    if a is None or b is None or a[1] != b[1] or len(a[0]) != len(b[0]):
        return False
    return any(x is not None and y is not None and "_" not in (x, y) and use.base not in (x, y)
               for x, y in zip(a[0], b[0]))


def _carried_names(model: FileModel, stmts: list, param: str, carry: cst.BaseExpression) -> tuple:
    """The names a loop body returns in its carry at the place it took them from (`carry`
    returned as the parameter itself, or `key` unpacked by a leading `key, acc = carry`
    and returned as `(key, acc)`), and the index of the first statement after the
    unpacking."""
    if isinstance(carry, cst.Name):
        return ({param} if carry.value == param else set()), 0
    if not isinstance(carry, (cst.Tuple, cst.List)):
        return set(), 0
    for i, stmt in enumerate(stmts[:3]):
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.value, cst.Name) and small.value.value == param):
            continue
        target = small.targets[0].target
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != len(carry.elements):
            return set(), 0
        names = {t.value.value for t, c in zip(target.elements, carry.elements)
                 if isinstance(t.value, cst.Name) and isinstance(c.value, cst.Name)
                 and t.value.value == c.value.value}
        return names, i + 1
    return set(), 0


def _iterates_mapping_keys(node: cst.CSTNode, name: str) -> bool:
    """`for key in batch: batch[key] = ...`: the loop indexes its iterable with each
    element, so the iterable is a mapping and `key` one of its keys. JAX arrays (PRNG
    keys included) are unhashable and cannot be dict keys, so this binds no PRNG key; a
    run that passes the rebound name as a key fails, and every run that does not still
    holds the key from before."""
    if not (isinstance(node, cst.For) and isinstance(node.target, cst.Name)
            and node.target.value == name and isinstance(node.iter, cst.Name)):
        return False
    iterable = node.iter.value
    stack: list = [node.body]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Subscript) and isinstance(cur.value, cst.Name) \
                and cur.value.value == iterable and len(cur.slice) == 1 \
                and isinstance(cur.slice[0].slice, cst.Index) \
                and isinstance(cur.slice[0].slice.value, cst.Name) \
                and cur.slice[0].slice.value.value == name:
            return True
        stack.extend(cur.children)
    return False


def _keys_unused(model: FileModel, split: cst.Call) -> bool:
    """The keys a split makes go straight to a call that says it draws nothing:
    `vmap(partial(model, enable_dropout=False))(x, key=split(key, n))`, or
    `model.apply(params, x, split(key)[0], deterministic=True)`."""
    arg = model.parent(split)
    call = model.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or arg not in call.args:
        return False
    options, func = list(call.args), call.func
    while isinstance(func, cst.Call) and func.args:  # through `vmap(...)`, `jit(...)`, `partial(...)`
        q = model.qualname(func.func)
        if q not in PARTIAL and q not in TRANSFORMS:
            break
        options += func.args[1:]
        func = func.args[0].value
    return any(a.keyword is not None and a.keyword.value in RANDOMNESS_OFF_FLAGS
               and isinstance(a.value, cst.Name) and a.value.value == str(RANDOMNESS_OFF_FLAGS[a.keyword.value])
               for a in options)


def _numbers_unread(model: FileModel, use: KeyUse) -> bool:
    """A draw bound to names that nothing reads (`batch_index = permutation(key, n)[:b]`,
    `batch_index` never mentioned again): its numbers are never used, so drawing them
    again from the key, or splitting it afterwards, repeats nothing that matters. Any
    other mention of the name in the function counts as a read; a module's global counts
    only in a notebook (another module may import it)."""
    if use.kind is not KeyEvent.SAMPLE or use.qualname not in RANDOM_SAMPLERS:
        return False
    node: cst.CSTNode = use.call
    parent = model.parent(node)
    while isinstance(parent, cst.Subscript) and parent.value is node:  # `permutation(...)[:b]`
        node, parent = parent, model.parent(parent)
    if not (isinstance(parent, cst.Assign) and parent.value is node):
        return False
    scope = model.scope_of(use.call)
    if scope.kind == "module" and not model.cells:
        return False
    names = []
    for target in parent.targets:
        if not _names_only(target.target):
            return False
        names += [n.value for n in target_names(target.target)]
    for name in names:
        if name in scope.globals or name in scope.nonlocals:
            return False
        mentions = model.names_spelled(name) if use.function is None \
            else model.names_spelled_in(name, use.function.node)
        for mention in mentions:
            if not _stored(model, mention) and _within_function(model, mention, use.function):
                return False
    return True


def _children_undrawn(model: FileModel, use: KeyUse) -> bool:
    """A split whose keys, and the keys split from them in turn, draw nothing that
    matters: bound to names of a function (`key, _ = split(particle_key)`) read only as
    the key of another such split (`key, _ = split(key)` in a loop) or of a draw whose
    numbers are wiped out (`_constant_draw`). Any other read, or a key that leaves the
    function, may draw: then False."""
    if use.kind is not KeyEvent.SPLIT or use.qualname not in RANDOM_SPLITTERS or use.function is None:
        return False
    cache = model.__dict__.setdefault("_children_undrawn", {})
    if use.call in cache:
        return cache[use.call]
    cache[use.call] = False
    scope = use.function.scope
    names: set[str] = set()
    seen, frontier = {use.call}, [use.call]
    answer = True
    while frontier and answer:
        node: cst.CSTNode = frontier.pop()
        parent = model.parent(node)
        while isinstance(parent, cst.Subscript) and parent.value is node:  # `split(key)[0]`
            node, parent = parent, model.parent(parent)
        if not (isinstance(parent, cst.Assign) and parent.value is node):
            answer = False
            break
        new = []
        for target in parent.targets:
            if not _names_only(target.target):
                answer = False
                break
            new += [n.value for n in target_names(target.target) if n.value not in names]
        for name in new:
            names.add(name)
            if name in scope.globals or name in scope.nonlocals:
                answer = False
                break
            for mention in model.names_spelled_in(name, use.function.node):
                if _stored(model, mention):
                    continue
                arg = model.parent(mention)
                call = model.parent(arg) if isinstance(arg, cst.Arg) else None
                if not isinstance(call, cst.Call) or _key_argument(call) is not mention:
                    answer = False
                    break
                q = model.qualname(call.func)
                if q in RANDOM_SPLITTERS:
                    if call not in seen:
                        seen.add(call)
                        frontier.append(call)
                elif not (q in RANDOM_SAMPLERS and _constant_draw(model, call, q)):
                    answer = False
                    break
            if not answer:
                break
    cache[use.call] = answer
    return answer


def _within_function(model: FileModel, node: cst.CSTNode, function: Optional[FunctionInfo]) -> bool:
    """`node` is in `function` or in a function nested in it (anywhere, for the module)."""
    if function is None:
        return True
    found = model.function_of(node)
    while found is not None and found is not function:
        found = found.enclosing
    return found is function


def _stored(model: FileModel, name: cst.Name) -> bool:
    """`name` is an assignment's target (alone or in a tuple), not a read."""
    node, parent = name, model.parent(name)
    while isinstance(parent, (cst.Element, cst.Tuple, cst.List, cst.StarredElement)):
        node, parent = parent, model.parent(parent)
    return isinstance(parent, cst.AssignTarget) and parent.target is node


def _constant_draw(model: FileModel, call: cst.Call, qualname: str) -> bool:
    """A draw whose numbers do not depend on its key: `randint(key, shape, 0, 1)` (one
    integer in [minval, maxval)), or `uniform(key, shape) * 0.` (the numbers wiped out)."""
    if _wiped_out(model, call):
        return True
    if qualname != "jax.random.randint":
        return False
    bounds = {}
    for i, arg in enumerate(call.args):
        name = arg.keyword.value if arg.keyword is not None else {2: "minval", 3: "maxval"}.get(i)
        if name in ("minval", "maxval"):
            value = arg.value
            negative = isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus)
            value = value.expression if negative else value
            if not isinstance(value, cst.Integer):
                return False
            bounds[name] = -int(value.evaluated_value) if negative else int(value.evaluated_value)
    return len(bounds) == 2 and bounds["maxval"] - bounds["minval"] == 1


def _wiped_out(model: FileModel, call: cst.Call) -> bool:
    """The draw reaches its value only through a product with a factor that is 0 on every
    run the file shows (`eps * jnp.sqrt(dt) * normal(key, shape)` where every call passes
    `eps=0.0`): the product is 0 whatever the key (the draws are finite)."""
    node: cst.CSTNode = call
    parent = model.parent(node)
    while isinstance(parent, cst.BinaryOperation) and (
            isinstance(parent.operator, cst.Multiply)
            or isinstance(parent.operator, cst.Divide) and parent.left is node):
        other = parent.right if parent.left is node else parent.left
        if _zero_factor(model, other):
            return True
        node, parent = parent, model.parent(parent)
    return False


def _zero_factor(model: FileModel, expr: cst.BaseExpression) -> bool:
    """`0.0`, a zero name or parameter (`zero_everywhere`), or a product with one."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        return _zero_factor(model, expr.left) or _zero_factor(model, expr.right)
    return zero_everywhere(model, expr)


def _pins(test: cst.BaseExpression, index: set[str]) -> bool:
    """`t == 0`: a test true for one value of the loop index `t`."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)):
        return False
    left, right = test.left, test.comparisons[0].comparator
    for name, other in ((left, right), (right, left)):
        if isinstance(name, cst.Name) and name.value in index and not any(
                isinstance(n, cst.Name) and n.value in index for n in walk(other)):
            return True
    return False


def _runs_nested(model: FileModel, func: FunctionInfo) -> bool:
    """A nested def its enclosing function calls, directly or through a transform applied
    where it is called (`jax.value_and_grad(loss_fn, has_aux=True)(params)`)."""
    if isinstance(func.node, cst.Lambda) or func.enclosing is None:
        return False
    for call in model.calls_named(func.name):
        if model.function_of(call) is func.enclosing and model.resolve_function(call.func) is func:
            return True
    for name in model.nodes(cst.Name):
        if name.value != func.name or model.function_of(name) is not func.enclosing:
            continue
        arg = model.parent(name)
        wrapper = model.parent(arg) if isinstance(arg, cst.Arg) else None
        if isinstance(wrapper, cst.Call) and wrapper.args and wrapper.args[0] is arg \
                and isinstance(model.parent(wrapper), cst.Call) and model.parent(wrapper).func is wrapper:
            return True
    return False


def _unwrapped(func: cst.BaseExpression) -> cst.BaseExpression:
    """`model.apply` in `jax.jit(model.apply)`: the callable a transform applied at the call wraps."""
    for _ in range(4):
        if isinstance(func, cst.Call) and func.args and func.args[0].keyword is None:
            func = func.args[0].value
            continue
        break
    return func


def _through_partial(model: FileModel, func: cst.BaseExpression) -> bool:
    while isinstance(func, cst.Call):
        if model.qualname(func.func) == "functools.partial":
            return True
        func = func.args[0].value if func.args else None
    return False


def _string_index(key: str) -> Optional[str]:
    """"dropout" for the key expression `rngs["dropout"]` (or `rngs['dropout']`)."""
    m = re.fullmatch(r"\w+\[(['\"])(\w+)\1\]", key)
    return m.group(2) if m else None


def _dict_entry(arg: Optional[cst.BaseExpression], sub: str) -> Optional[cst.BaseExpression]:
    """The value a dict display passes under the key `sub`: `key` in `{"dropout": key}`."""
    if not isinstance(arg, cst.Dict):
        return None
    for el in arg.elements:
        if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString) \
                and el.key.evaluated_value == sub:
            return el.value
    return None


def _applied_at_once(model: FileModel, lam: cst.CSTNode) -> bool:
    """`(lambda: ...)()` or `transform(lambda ...)(args)`: the lambda runs right there."""
    parent = model.parent(lam)
    if isinstance(parent, cst.Call) and parent.func is lam:
        return True
    if isinstance(parent, cst.Arg):
        wrapper = model.parent(parent)
        outer = model.parent(wrapper) if isinstance(wrapper, cst.Call) else None
        return isinstance(outer, cst.Call) and outer.func is wrapper
    return False


def _comprehension_targets(comp: cst.CSTNode) -> set[str]:
    names = set()
    comp_for = comp.for_in
    while comp_for is not None:
        names.update(n.value for n in target_names(comp_for.target))
        comp_for = comp_for.inner_for_in
    return names


def _bound_bases(target: cst.BaseExpression):
    """Names whose keys an assignment target replaces: `key`, and `keys` for `keys[0] = ...`."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _bound_bases(el.value)
    elif isinstance(target, cst.StarredElement):
        yield from _bound_bases(target.value)
    elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
        yield target.value.value
    elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
        yield f"{target.value.value}.{target.attr.value}"  # `self.rng = ...`


def _touching(model: FileModel, call: cst.Call, objects: set) -> set:
    """The objects of `objects` whose attributes `call` may set: a method called on one
    (`self.advance()`, `super().reset()` for `self`), one passed to the call
    (`setattr(self, ...)`, `helper(state)`), or, for an object held in a global, any
    call of this file's functions."""
    out = set()
    func = call.func
    if isinstance(func, cst.Attribute):
        receiver = func.value
        if isinstance(receiver, cst.Name) and receiver.value in objects:
            out.add(receiver.value)
        elif isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) \
                and receiver.func.value == "super" and "self" in objects:
            out.add("self")
    for arg in call.args:
        for n in walk(arg.value):
            if isinstance(n, cst.Name) and n.value in objects:
                parent = model.parents.get(n)
                if not (isinstance(parent, cst.Attribute) and parent.value is n):
                    out.add(n.value)  # the object itself, not one of its attributes
    if called_function(model, call) is not None:
        for obj in objects - out:
            bindings = model.scope_of(call).lookup(obj) or []
            if bindings and bindings is model.module_scope.bindings.get(obj):
                out.add(obj)
    return out


# ---------------------------------------------------------------- where numbers meet
# The stream of values a generator yields (no Python name can be spelled so).
_YIELDED = "<yielded>"


class _Meetings(Flow):
    """Which key consumers' numbers reach one statement, in one body.

    A state maps each local name to the consumers its value derives from. An
    assignment gives its targets what the right-hand side reads (a store into
    `box.attr`, `box[i]` or `box.append(...)` adds to `box`); a statement or a
    compound header that reads values derived from two consumers is where they
    meet. Reads of `.shape`, `.dtype` and the like, and the sample inputs of
    `jax.eval_shape` and `init`, use no numbers. Loops run twice, so values
    carried to the next iteration meet there.

    Whether the numbers of a value are ever read is the one question: two consumers
    meet only where a statement reads the numbers of what both make (a `return`, a
    call, a condition, a check that compares values, a store into an object). An
    assignment to plain names (`z = mlp(x, w)`), a `for` target bound to what its
    iterable holds, and a nested `def` that closes over values hold what they
    combine (a `_Hold`), and pass it on to whatever plain name is made from them
    (`out = f(variables, x)`, `for leaf in tree_leaves(grads)`, `grads =
    jax.grad(loss)(params)`): a result that is only measured for its shape, its layout
    or its time, checked only for finiteness, or thrown away (`_ = f(x, w)`), uses no
    numbers. One that is never mentioned again counts as used (a snippet's `c = a *
    b`). Statements that run only to be timed (`%timeit`, a discarded
    `f(x).block_until_ready()` in a timing loop) read nothing either.

    `observed` gathers every consumer whose numbers some statement reads; run over a
    helper with its parameters as consumers (`_static_parameters`), it says which
    parameters the helper never reads the numbers of.
    """

    loop_passes = 2
    zero_iterations = True

    def __init__(self, model: FileModel, uses_at: dict):
        self.model = model
        self.uses_at = uses_at
        self.met: set[frozenset] = set()
        # Per list: what `xs.append(x)` gathered in it. They meet where the list is
        # used, unless it is only iterated, indexed or checked one element at a time.
        self._gathered: dict[str, set] = {}
        self._plainly_read: set[str] = set()
        # Per loop being walked: which pass over its body this is (1, 2).
        self._passes: dict = {}
        # Every value that held meetings on plain names (see `_Hold`).
        self._holds: list[_Hold] = []
        # The consumers whose numbers a statement reads.
        self.observed: set = set()

    def run(self, stmts, state: Optional[dict] = None) -> list:
        self.block(stmts, {} if state is None else state)
        for name, gathered in self._gathered.items():
            if name not in self._plainly_read:  # never used: as good as used whole
                self.met |= gathered
        for hold in self._holds:
            if not hold.mentioned and any(name != "_" for name in hold.names) \
                    and not _in_timed_loop(self.model, hold.node):
                self.met |= hold.meetings
        for met in self.met:
            self.observed |= met
        return list(self.met)

    def _hold(self, names: list, meetings: set, node, state: dict) -> None:
        """`names` now hold `meetings` (none: nothing held), made by `node`."""
        if not meetings:
            return
        hold = _Hold(tuple(names), frozenset(meetings), node)
        self._holds.append(hold)
        for name in names:
            state[(_HELD, name)] = frozenset({hold})

    def _observe(self, read: frozenset, holds=()) -> None:
        """A statement reads the numbers of `read` and of what `holds` hold."""
        self.observed |= read
        for hold in holds:
            hold.mentioned = True
            self.met |= hold.meetings

    def may_skip(self, loop) -> bool:
        """`for i in range(500)` runs its body: a value it rebinds is not the one before."""
        return not _runs_at_least_once(self.model, loop)

    # states: name -> frozenset of KeyUse; None has ended
    def copy(self, s):
        return None if s is None else dict(s)

    def join(self, a, b):
        out = dict(b)
        for name, uses in a.items():
            out[name] = out.get(name, frozenset()) | uses
        return out

    def ended(self, s):
        return s is None

    def end(self, s):
        return None

    def resume(self, s, entry):
        return dict(entry)

    # statements
    def simple(self, small, state):
        if _only_timed(self.model, small):
            self._glimpse(small, state)
            return state
        if isinstance(small, cst.Assert) and (_structure_only(self.model, small.test)
                                              or _finiteness_only(self.model, small.test)
                                              or _bound_only(self.model, small.test)):
            # `assert "loss" in metrics`: no numbers read; `assert not jnp.isnan(out).any()`:
            # finite draws make a finite result whether or not they are independent.
            self._glimpse(small.test, state)
            return state
        if self.model.expects_error(small):
            # `with pytest.raises(ValueError): dec.apply(v, x, ctxs)`: the call is checked to
            # raise, and JAX raises on shapes, dtypes and structure (a traced value cannot be
            # branched on), so it gives no value and its error does not depend on the numbers.
            self._glimpse(small, state)
            return state
        compared = _compared(self.model, small)
        if compared is not None and (any(fixed_fill(self.model, c) for c in compared)
                                     or _one_computation(self.model, compared, state)):
            # `assert jnp.allclose(w.sum(-1), jnp.ones_like(...))`: like a bound, a value the code
            # keeps for any inputs; `assert allclose(f(x)[perm], f(x[perm]))`: one computation
            # compared with itself, which holds or fails whatever numbers its inputs hold.
            self._glimpse(small, state)
            return state
        checked = _checked_parts(small)
        if checked and all(_finiteness_only(self.model, part) or _bound_only(self.model, part)
                           for part in checked):
            self._glimpse(small, state)  # `self.assertFalse(jnp.any(jnp.isnan(out)))`
            return state
        if checked is not None and _compares_a_repeat(self.model, checked):
            self._glimpse(small, state)  # `assert allclose(out1, out2)`, one call run twice
            return state
        if checked is not None:
            # A check compares its operands (`assert a == b`, `assert_allclose(a, b)`):
            # only what each operand computes is a meeting.
            for part in checked:
                self._reads(part, state, anchor=None, meet=not _plain(part))
            return state
        copies = isinstance(small, cst.Assign) and isinstance(small.value, (cst.Name, cst.Attribute, cst.Subscript)) \
            and _plain(small.value)  # `base = losses[0]`: a name for a value, nothing computed
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
            [small.target] if isinstance(small, cst.AnnAssign) and small.value is not None else []
        held = bool(targets) and all(_names_only(t) for t in targets)
        carried: set = set()
        read = self._reads(small, state, meet=not copies, hold=held, carried=carried)
        for target in targets:
            self._store(target, read, state, replace=True)
        if isinstance(small, cst.AugAssign):
            self._store(small.target, read, state, replace=False)
        if held:
            meetings = {met for hold in carried for met in hold.meetings}
            if len(read) > 1 and not copies:
                meetings.add(read)
            self._hold([n.value for t in targets for n in target_names(t)], meetings, small, state)
        return state

    def header(self, node, state):
        if isinstance(node, (cst.For, cst.While)):
            self._passes[node] = 0  # entering the loop (again, when nested)
        if isinstance(node, cst.With):
            for item in node.items:
                read = self._reads(item.item, state, anchor=node)
                if item.asname is not None:
                    self._store(item.asname.name, read, state, replace=True)
        elif isinstance(node, (cst.If, cst.While)):
            self._reads(node.test, state, anchor=node)
        elif isinstance(node, cst.Match):
            self._reads(node.subject, state, anchor=node)
        return state

    def iteration(self, loop, state):
        """A `for` target is bound to what its iterable holds, as an assignment would be:
        `for leaf in tree_leaves(grads)` holds what `grads` holds."""
        self._passes[loop] = self._passes.get(loop, 0) + 1
        if isinstance(loop, cst.For):
            meet = not _plain(loop.iter)
            held = _names_only(loop.target)
            carried: set = set()
            read = self._reads(loop.iter, state, anchor=loop, meet=meet, hold=held, carried=carried)
            self._store(loop.target, read, state, replace=True)
            if held:
                meetings = {met for hold in carried for met in hold.meetings}
                if len(read) > 1 and meet:
                    meetings.add(read)
                self._hold([n.value for n in target_names(loop.target)], meetings, loop, state)
        return state

    def define(self, node, state):
        """A nested def reads what it closes over: `w` and `b` drawn above meet in
        `def features(x): return cos(x @ w + b)`, and calls of `features` carry both."""
        if isinstance(node, cst.FunctionDef):
            own = {p.name.value for p in _params(node.params)}
            info = self.model.function_info(node)
            if info is not None:  # its own locals (`steps = [...]`) are not the outer `steps`
                own |= set(info.scope.bindings) - info.scope.globals - info.scope.nonlocals
            carried: set = set()
            read = self._reads(node.body, state, anchor=None, shadowed=own, hold=True, carried=carried)
            defaults = [p.default for p in _params(node.params) if p.default is not None]
            for default in defaults:  # `def apply(v, mat=MAT)` holds MAT
                read |= self._reads(default, state, anchor=None, hold=True, carried=carried)
            state[node.name.value] = read
            meetings = {met for hold in carried for met in hold.meetings}
            if len(read) > 1:
                meetings.add(read)
            # The function holds what it closes over: its calls read it.
            state.pop((_HELD, node.name.value), None)
            self._hold([node.name.value], meetings, node, state)
        return state

    # values
    def _reads(self, node, state, anchor="self", shadowed=frozenset(), meet=True, hold=False,
               carried: Optional[set] = None) -> frozenset:
        """The consumers whose numbers `node` reads (its own draws included); records
        a meeting when there are two or more, unless `meet` is False: a loop's iterable
        or a check's operand that only names values (`for loss in losses`,
        `assert close(loss, base)`) computes nothing with them. With `hold`, the caller
        holds the meeting on the names it assigns, and `carried` gathers the holds of
        the names it reads, to pass on. Without `hold`, reading a name that holds a
        meeting makes it one. A lambda's parameters shadow the names around it."""
        anchor = node if anchor == "self" else anchor
        found: set = set(map(self._tagged, self.uses_at.get(anchor, ()))) if anchor is not None else set()
        holds: set = set()
        stores: list = []
        yields = False
        stack = [(node, frozenset(shadowed))]
        while stack:
            n, hidden = stack.pop()
            if isinstance(n, cst.Yield):
                yields = True
            if isinstance(n, cst.Name):
                if n.value not in hidden:
                    found |= state.get(n.value, frozenset())
                    holds |= state.get((_HELD, n.value), frozenset())
                    if not meet:
                        self._plainly_read.add(n.value)
                    elif n.value in self._gathered:
                        self.met |= self._gathered.pop(n.value)
                continue
            if isinstance(n, cst.Attribute):
                if n.attr.value in STATIC_ATTRIBUTES:
                    self._glimpse(n.value, state)
                    continue  # `x.shape`: the numbers are not read
                stack.append((n.value, hidden))
                continue
            if isinstance(n, (cst.AssignTarget, cst.FunctionDef, cst.ClassDef)):
                continue
            if isinstance(n, cst.Comparison) and _structure_only(self.model, n):
                self._glimpse(n, state)
                continue
            if isinstance(n, cst.Lambda):
                stack.append((n.body, hidden | {p.name.value for p in _params(n.params)}))
                continue
            if isinstance(n, _COMPREHENSIONS):
                # `[a for _ in range(n)]`: its targets are its own names, not the
                # enclosing `_`; the first iterable is read where the comprehension is,
                # for no numbers when the targets are read only for their shapes
                # (`[o.shape for o in outs]`).
                own = hidden | _comprehension_targets(n)
                if _shapes_of_targets(self.model, n):
                    self._glimpse(n.for_in.iter, state)
                else:
                    stack.append((n.for_in.iter, hidden))
                parts = [n.elt] if not isinstance(n, cst.DictComp) else [n.key, n.value]
                comp, inner = n.for_in, []
                while comp is not None:
                    inner += [i.test for i in comp.ifs]
                    if comp is not n.for_in:
                        inner.append(comp.iter)
                    comp = comp.inner_for_in
                stack.extend((c, own) for c in parts + inner)
                continue
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and not n.args \
                    and n.func.attr.value in STRUCTURE_ONLY_METHODS:
                self._glimpse(n.func.value, state)  # `metrics.keys()`: what it holds, not its numbers
                continue
            if isinstance(n, cst.Call):
                parts = self._value_arguments(n, stores)
                for arg in n.args:
                    if all(arg.value is not part for part in parts):
                        self._glimpse(arg.value, state)
                stack.extend((c, hidden) for c in parts)
                continue
            stack.extend((c, hidden) for c in children(n))
        read = frozenset(found)
        if hold:
            for held in holds:
                held.mentioned = True
            if carried is not None:
                carried |= holds
        else:
            self._observe(read, holds)
        for receiver in stores:  # `xs.append(x)`: `xs` holds what the statement read
            self._store(receiver, read, state, replace=False)
            held = state.get(receiver.value, frozenset()) if isinstance(receiver, cst.Name) else ()
            if len(held) > 1:
                self._gathered.setdefault(receiver.value, set()).add(held)
        if yields:
            # What a generator yields, its consumer gathers in one stream, like a list.
            self.observed |= read
            held = state[_YIELDED] = state.get(_YIELDED, frozenset()) | read
            if len(held) > 1:
                self._gathered.setdefault(_YIELDED, set()).add(held)
        if len(read) > 1 and meet and not hold:
            self.met.add(read)
        return read

    def _glimpse(self, node, state: dict) -> None:
        """`node` is read for no numbers (`x.shape`, `%timeit f(x)`): what its names hold
        is mentioned, and not used."""
        for n in walk(node):
            if isinstance(n, cst.Name):
                for hold in state.get((_HELD, n.value), frozenset()):
                    hold.mentioned = True

    def _tagged(self, use: KeyUse):
        """`use` as drawn on the current pass: on a later pass of a loop around it, its
        numbers come from another iteration than those of the first pass."""
        later = frozenset(loop for loop in _loops_around(self.model, use.call)
                          if self._passes.get(loop, 0) > 1)
        return _Again(use, later) if later else use

    def _value_arguments(self, call: cst.Call, stores: list) -> list:
        """The parts of a call whose numbers it reads."""
        func = call.func
        if self.model.qualname(func) in SHAPE_ONLY_CALLS | STRUCTURE_ONLY_CALLS | TIMEIT_FUNCTIONS | FINITENESS_CALLS:
            # A layout, the seconds a call took, or whether values are finite (finite
            # draws make a finite result whether or not they are independent).
            return [func]
        args = [a.value for a in call.args]
        if args and isinstance(args[0], cst.Lambda) and _shapes_of_parameters(self.model, args[0]) \
                and self.model.qualname(func) in PER_LEAF_MAPS | {"builtins.map"}:
            return [func, args[0]]  # `map(lambda x: x.shape, (x, w))`: the elements' shapes
        helper = self.model.resolve_function(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if helper is not None and _returns_a_duration(self.model, helper):
            return [func]  # `measure_time(f, x)`: the seconds a call took
        looked_at = _static_arguments(self.model, call)
        if looked_at:  # `check_shape(out, (2, 3))`: a helper that reads only `out.shape`
            args = [a for a in args if all(a is not s for s in looked_at)]
        if isinstance(func, cst.Attribute):
            if func.attr.value in ABSTRACT_METHODS:
                return [func]
            if func.attr.value in SHAPE_ONLY_METHODS:
                args = args[:1]
            elif func.attr.value in _STORING_METHODS:
                # `xs.append(x)` keeps `x` beside what `xs` holds: they meet where
                # the list is used (`jnp.stack(xs)`, `return xs`), not here.
                stores.append(func.value)
                return args
        return [func] + args

    def _store(self, target, read: frozenset, state: dict, replace: bool) -> None:
        if isinstance(target, cst.Name):
            if replace:
                state.pop((_HELD, target.value), None)  # the value that held it is gone
            old = frozenset() if replace else state.get(target.value, frozenset())
            state[target.value] = old | read
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._store(el.value, read, state, replace)
        elif isinstance(target, cst.StarredElement):
            self._store(target.value, read, state, replace)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            self.observed |= read  # kept in an object: whoever holds it may read it
            base = target.value
            while isinstance(base, (cst.Attribute, cst.Subscript)):
                base = base.value
            if isinstance(base, cst.Name):
                held = state.get(base.value, frozenset()) | read
                state[base.value] = held
                if len(held) > 1:
                    self.met.add(held)  # two fields of one object, one batch


# A state key `(_HELD, name)`: the `_Hold`s of the value of `name`.
_HELD = "held"


@dataclass(eq=False)
class _Hold:
    """Meetings that a value bound to plain names holds until a statement reads its
    numbers: `names` (`out, w` of `out, w = f(x, ctx)`), made by `node`. `mentioned`
    once anything reads the names, for their numbers or not; a value never mentioned
    again counts as used (a snippet's last `c = a * b`)."""

    names: tuple
    meetings: frozenset
    node: cst.CSTNode
    mentioned: bool = False


def _runs_at_least_once(model: FileModel, loop: cst.CSTNode) -> bool:
    """`for _ in range(n)` with `n` a positive literal (or `range(a, b)`, literals a < b)."""
    if not (isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call)
            and model.qualname(loop.iter.func) == "builtins.range"):
        return False
    args = loop.iter.args
    if not 1 <= len(args) <= 2 or any(a.keyword or a.star or not isinstance(a.value, cst.Integer) for a in args):
        return False
    bounds = [int(a.value.evaluated_value) for a in args]
    return bounds[-1] > (bounds[0] if len(bounds) == 2 else 0)


def _static_arguments(model: FileModel, call: cst.Call) -> list:
    """The arguments of a call of a function of this file that it reads only for what
    their values are (`_static_parameters`), never for their numbers."""
    if not isinstance(call.func, (cst.Name, cst.Attribute)):
        return []  # `jax.grad(check)(x)`: a transform reads what the function does with it
    helper = called_function(model, call)
    if helper is None:
        return []
    static = _static_parameters(model, helper)
    if not static:
        return []
    shift = _receiver_shift(helper, call)
    found = [a for a in (argument_for(call, helper, p, shift) for p in sorted(static)) if a is not None]
    if helper.vararg in static:  # `check(module, x, ctx)` for `def check(module, *args)`
        leading = []
        for a in call.args:
            if a.star or a.keyword is not None:
                break
            leading.append(a.value)
        found += leading[max(len(helper.positional) - shift, 0):]
    return found


def _parameter_callee(model: FileModel, call: cst.Call) -> tuple:
    """`model(states, key=rng)` where `model` is a parameter that every call of its function
    in this file fills with one function of the file (`get_logits(q_online, states, rng)`):
    calling the parameter runs that function. (None, 0) when a site passes something else,
    or none passes it. A bound method passed (`obj.apply`) has its object as `self`."""
    if not isinstance(call.func, cst.Name):
        return None, 0
    sites = passed_arguments(model, call.func)
    if not sites:
        return None, 0
    found = [function_of_callable(model, arg) for _, arg in sites]
    helper = found[0]
    if helper is None or helper.is_lambda or any(f is not helper for f in found):
        return None, 0
    bound = helper.is_method and not _is_staticmethod(helper) and (
        all(isinstance(arg, cst.Attribute) for _, arg in sites) or helper.name == "__call__")
    return helper, 1 if bound else 0


def _receiver_shift(helper: FunctionInfo, call: cst.Call) -> int:
    """1 where a method's first parameter is the object it is called on (`obj.m(x)`)."""
    return 1 if helper.is_method and not _is_staticmethod(helper) and (
        isinstance(_unwrapped(call.func), cst.Attribute) or helper.name == "__call__") else 0


_STATIC_PARAMETERS: "weakref.WeakKeyDictionary[FileModel, dict]" = weakref.WeakKeyDictionary()


def _static_parameters(model: FileModel, helper: FunctionInfo) -> frozenset:
    """The parameters whose numbers a function of this file never reads: it reads them
    only for what their values are, their shape, dtype or size (static in JAX: known at
    trace time, the same whatever the numbers), their type, whether they are None, their
    finiteness (`def check_shape(x, expected): assert x.shape == expected`), or passes
    them on only to values so read (`def check_backward(module, *args)` whose gradients
    it only checks for finiteness). Two draws that meet only in such a call never meet
    in numbers. This is `_Meetings` run over the body with each parameter as a consumer
    of its own: a parameter is read when a statement reads the numbers of a value made
    from it (`print(x)`, `return f(x)`, a store into an object). A parameter the
    function rebinds reads numbers, and so does any of a function that declares
    `global` or `nonlocal` names (a store there escapes)."""
    cache = _STATIC_PARAMETERS.setdefault(model, {})
    if helper in cache:
        return cache[helper]
    cache[helper] = frozenset()  # a function passing its parameter to itself reads nothing more
    if helper.is_lambda or not isinstance(helper.node, cst.FunctionDef) \
            or helper.scope.globals or helper.scope.nonlocals:
        return cache[helper]
    params = [p for p in helper.positional + helper.kwonly + ([helper.vararg] if helper.vararg else [])
              if all(b.kind == "param" for b in helper.scope.bindings.get(p, []))]
    if helper.is_method and not _is_staticmethod(helper) and helper.positional:
        params = [p for p in params if p != helper.positional[0]]
    # A parameter never mentioned says nothing: a stub to fill in (`def train_step(w, x):
    # pass` in an exercise) is no function that ignores its input.
    mentioned = {node.value for node in walk(helper.node.body) if isinstance(node, cst.Name)}
    params = [p for p in params if p in mentioned]
    if not params:
        return cache[helper]
    tokens = {p: _Parameter(p) for p in params}
    meetings = _Meetings(model, {})
    meetings.run(body(helper.node), {p: frozenset({token}) for p, token in tokens.items()})
    found = frozenset(p for p, token in tokens.items() if token not in meetings.observed)
    cache[helper] = found
    return found


@dataclass(frozen=True)
class _Parameter:
    """A parameter as a consumer of its own, for `_static_parameters`."""

    name: str


def _shapes_of_targets(model: FileModel, comp: cst.CSTNode) -> bool:
    """`[o.shape for o in outs]`: one `for`, whose targets the comprehension reads only
    for `.shape`, `.dtype` and the like."""
    if comp.for_in.inner_for_in is not None or isinstance(comp, cst.DictComp):
        return False
    names = _comprehension_targets(comp)
    return all(_read_only_for_static_attributes(model, part, names)
               for part in [comp.elt, *[i.test for i in comp.for_in.ifs]])


def _shapes_of_parameters(model: FileModel, lam: cst.Lambda) -> bool:
    """A lambda that reads its parameters only for `.shape`, `.dtype` and the like."""
    return _read_only_for_static_attributes(model, lam.body, {p.name.value for p in _params(lam.params)})


def _read_only_for_static_attributes(model: FileModel, tree: cst.CSTNode, names: set[str]) -> bool:
    """Every read of `names` in `tree` is `name.shape`, `name.dtype` or the like."""
    for node in walk(tree):
        if isinstance(node, cst.Name) and node.value in names:
            parent = model.parent(node)
            if not (isinstance(parent, cst.Attribute) and parent.value is node
                    and parent.attr.value in STATIC_ATTRIBUTES):
                return False
    return True


def _returns_a_duration(model: FileModel, function: FunctionInfo) -> bool:
    """A timing helper of this file: every `return` gives clock reads and arithmetic on
    them (`return end - start` with `start = time.time()`), never its arguments' numbers."""
    if function.is_lambda:
        return False
    returns = [n for n in walk(function.node.body, prune=(cst.FunctionDef, cst.Lambda, cst.ClassDef))
               if isinstance(n, cst.Return)]
    if not returns or any(r.value is None for r in returns):
        return False

    def clock(expr) -> bool:
        if isinstance(expr, (cst.Integer, cst.Float)):
            return True
        if isinstance(expr, cst.BinaryOperation):
            return clock(expr.left) and clock(expr.right)
        if isinstance(expr, cst.Call):
            return model.qualname(expr.func) in CLOCK_FUNCTIONS and not expr.args
        if isinstance(expr, cst.Name):
            bindings = function.scope.bindings.get(expr.value, [])
            return bool(bindings) and all(
                isinstance(b.node, cst.Assign) and isinstance(b.node.value, cst.Call)
                and model.qualname(b.node.value.func) in CLOCK_FUNCTIONS for b in bindings)
        return False

    return all(clock(r.value) for r in returns)


def _names_only(target: cst.BaseExpression) -> bool:
    """`z`, `x, logp`: a target that binds names only (no store into an object)."""
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(_names_only(el.value) for el in target.elements)
    return isinstance(target, cst.StarredElement) and _names_only(target.value)


def _only_timed(model: FileModel, small: cst.BaseSmallStatement) -> bool:
    """A statement run only to be timed, whose values nothing sees: a `%timeit` line
    (IPython runs it in a function of its own, so even its assignments are dropped), or
    a discarded `f(x).block_until_ready()` / `jax.block_until_ready(f(x))` (except as a
    notebook cell's last statement, which is displayed)."""
    line = model.parent(small)
    comment = getattr(getattr(line, "trailing_whitespace", None), "comment", None)
    if comment is not None and (timed_magic(comment.value) or [""])[0] == "timeit":
        return True
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)) \
            or model.shown_by_cell(small):
        return False
    func = small.value.func
    return (isinstance(func, cst.Attribute) and func.attr.value == "block_until_ready" and not small.value.args) \
        or model.qualname(func) == "jax.block_until_ready"


def _in_timed_loop(model: FileModel, node: cst.CSTNode) -> bool:
    """`node` runs in a loop that a clock read starts and another stops
    (`t0 = time.perf_counter()`, the loop, `time.perf_counter() - t0`): a result it
    binds and nothing reads again was computed only to be timed."""
    for loop in _loops_around(model, node):
        line = model.parent(loop)
        stmts = getattr(line, "body", None)
        if not isinstance(stmts, (list, tuple)) or loop not in stmts:
            continue
        at = stmts.index(loop)
        if at and _reads_clock(model, stmts[at - 1]) and any(_reads_clock(model, s) for s in stmts[at + 1:]):
            return True
    return False


def _reads_clock(model: FileModel, stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(n, cst.Call) and model.qualname(n.func) in CLOCK_FUNCTIONS for n in walk(stmt))


@dataclass(frozen=True, eq=True)
class _Again:
    """A consumer's numbers drawn on a later iteration of `loops` than the first."""

    use: KeyUse
    loops: frozenset


def _consumer(element) -> KeyUse:
    return element.use if isinstance(element, _Again) else element


def _later(element) -> frozenset:
    return element.loops if isinstance(element, _Again) else frozenset()


def _loops_around(model: FileModel, node: cst.CSTNode) -> list:
    """The `for` / `while` loops whose body runs `node`, in its own function."""
    out = []
    child = node
    for anc in model.ancestors(node):
        if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            break
        if isinstance(anc, (cst.For, cst.While)) and child is anc.body:
            out.append(anc)
        child = anc
    return out


def _printed_each_repeat(model: FileModel, use: KeyUse, loop: cst.CSTNode) -> bool:
    """`for _ in range(3): print(jax.random.normal(key, (2,)))`: a loop that only repeats
    prints the same numbers on every line, and the output is where they meet. The draw
    is in the loop itself, its arguments do not change with the loop (a loop over cases
    passes each case instead), and what is printed is the drawn value alone (`x`,
    `x.mean()`), not mixed with what the loop changes (`loss(params, x)`)."""
    if use.qualname not in RANDOM_SAMPLERS or not (
            isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call)
            and model.qualname(loop.iter.func) in ("range", "builtins.range")):
        return False
    loop_names = {n.value for n in target_names(loop.target)}
    if any(_free_names(arg.value) & loop_names for arg in use.call.args):
        return False
    node, parent = use.call, model.parent(use.call)
    while parent is not None and parent is not loop.body:
        if _is_print(model, parent):
            return True
        if isinstance(parent, cst.Assign) and parent.value is node:
            break
        node, parent = parent, model.parent(parent)
    else:
        return False
    if not (len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)):
        return False
    name = parent.targets[0].target.value
    return any(_is_print(model, call) and any(_free_names(a.value) == {name} for a in call.args)
               for call in walk(loop.body))


def _is_print(model: FileModel, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and model.qualname(node.func) in ("print", "builtins.print")


def _free_names(expr: cst.CSTNode) -> set:
    """The names an expression reads (`x.mean()` reads `x`; `mean` is an attribute)."""
    attrs = {id(n.attr) for n in walk(expr) if isinstance(n, cst.Attribute)}
    return {n.value for n in walk(expr) if isinstance(n, cst.Name) and id(n) not in attrs}


def _iterations_meet(met, use: KeyUse, loop: cst.CSTNode, model: FileModel) -> bool:
    """`met` holds `use`'s numbers from two iterations of `loop` (the same iteration of
    every loop around it, where the key may be new)."""
    outer = set(_loops_around(model, loop))
    seen = [_later(e) for e in met if _consumer(e) is use]
    return any(a != b and a & outer == b & outer for i, a in enumerate(seen) for b in seen[i + 1:])


def _aligned_shuffle(model: FileModel, use: KeyUse, loop: cst.CSTNode) -> bool:
    """`[permutation(key, a) for a in arrays]`: one key permutes each array of a set
    the same way, so their rows stay aligned; that is what the shared key is for."""
    if use.kind is not KeyEvent.SAMPLE or use.qualname not in ALIGNING_SAMPLERS:
        return False
    args = [a.value for a in use.call.args if a.keyword is None or a.keyword.value == "x"]
    if len(args) < 2 or not isinstance(args[1], cst.Name):
        return False
    if isinstance(loop, _COMPREHENSIONS):
        return args[1].value in _comprehension_targets(loop)
    return isinstance(loop, cst.For) and args[1].value in {n.value for n in target_names(loop.target)}


def _aligned_pair(model: FileModel, previous: KeyUse, use: KeyUse) -> bool:
    """`choice(key, x, (n,))` then `choice(key, y, (n,))`: the same rows of x and y, so
    each sample stays paired with its label; the calls differ in the array only. So
    for a helper of this file that draws from its key: `features(key, x, rank)` then
    `features(key, y, rank)` applies one random map to x and to y (random features
    of a kernel, one projection for both sides), which is what the shared key is for."""
    if previous.qualname != use.qualname:
        return False
    helper = not use.qualname.startswith("jax.")
    if use.qualname not in ALIGNING_SAMPLERS and not helper:
        return False
    code = model.module.code_for_node
    a, b = previous.call.args, use.call.args
    if len(a) != len(b) or len(a) < 2 or code(previous.call.func) != code(use.call.func) \
            or any(code(x.keyword) != code(y.keyword) if x.keyword or y.keyword else False for x, y in zip(a, b)):
        return False
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if code(x.value) != code(y.value)]
    if helper:  # one argument differs: an array the helper's random map is applied to
        return len(differ) == 1 and _applied_to(model, use.call, differ[0])
    return differ == [1]


def _applied_to(model: FileModel, call: cst.Call, index: int) -> bool:
    """Whether argument `index` of a call of a helper of this file is data that the
    helper's random map is applied to: the call passes a name (not a shape written out),
    and the helper reads the parameter's values but never hands it to a `jax.random`
    call. Its draws may take a size from it (`normal(key, (k, x.shape[1]))`, one
    projection for all rows), but not its whole shape (`normal(key, x.shape)` is noise
    per element of x, and two arrays would get the same noise)."""
    arg = call.args[index]
    helper = model.resolve_function(call.func)
    if helper is None or not isinstance(arg.value, (cst.Name, cst.Attribute, cst.Subscript)):
        return False
    if arg.keyword is not None:
        name = arg.keyword.value
    else:
        position = index + (1 if helper.is_method else 0)
        if position >= len(helper.positional):
            return False
        name = helper.positional[position]
    data = False
    for node in walk(helper.node.body):
        if not (isinstance(node, cst.Name) and node.value == name):
            continue
        parent = model.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in STATIC_ATTRIBUTES:
            arg = model.parent(parent)
            draw = model.parent(arg) if isinstance(arg, cst.Arg) else None
            if isinstance(draw, cst.Call) and (model.qualname(draw.func) or "").startswith("jax.random."):
                return False  # `normal(key, x.shape)`: noise per element of x, not one map
            continue
        for anc in model.ancestors(node):
            if isinstance(anc, cst.Call) and (model.qualname(anc.func) or "").startswith("jax.random."):
                return False  # a parameter of the draw itself
            if isinstance(anc, cst.BaseSmallStatement):
                break
        data = True
    return data


def _same_draw(model: FileModel, previous: KeyUse, use: KeyUse) -> bool:
    """The same call written again with the same arguments (`init(key)` twice, one
    environment reset like the other): identical numbers, which a comment can mean. Two
    different draws from one key (a `normal` for weights and a `bernoulli` for dropout,
    shapes (2,) and ()) give correlated numbers that no comment makes independent."""
    if previous.call is use.call or previous.qualname != use.qualname:
        return False
    code = model.module.code_for_node
    a, b = previous.call.args, use.call.args
    return len(a) == len(b) and all(code(x) == code(y) for x, y in zip(a, b))


def _checked_parts(small: cst.CSTNode) -> Optional[list]:
    """The operands of a check, or None: `assert a == b` and `assert close(a, b)` give
    [a, b]; so does a test call `np.testing.assert_allclose(a, b)` / `self.assertEqual(a, b)`."""
    if isinstance(small, cst.Assert):
        return _operands(small.test)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        func = small.value.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
        if isinstance(name, str) and name.lower().lstrip("_").startswith("assert"):
            return [a.value for a in small.value.args]
    return None


def _compares_a_repeat(model: FileModel, parts: list) -> bool:
    """`out1 = f(v, x); out2 = f(v, x)`, then `assert allclose(out1, out2)`: both operands
    are the same call written twice on consecutive lines, on the same inputs. The check asks
    whether the computation is deterministic, and a JAX function gives equal results on
    equal inputs whatever numbers they hold, so it reads nothing of them."""
    if len(parts) == 1 and isinstance(parts[0], cst.Call):
        parts = _operands(parts[0])  # `self.assertTrue(jnp.allclose(out1, out2))`
    if len(parts) < 2 or not all(isinstance(p, cst.Name) for p in parts[:2]):
        return False
    assigns = []
    for name in parts[:2]:
        found = model.binding_in_effect(name)
        if found is None or not isinstance(found.node, cst.Assign) \
                or not isinstance(found.node.value, cst.Call):
            return False
        assigns.append(found.node)
    first, second = assigns
    code = model.module.code_for_node
    if first is second or code(first.value) != code(second.value):
        return False
    lines = [model.parent(a) for a in assigns]
    block = model.parent(lines[0])
    if block is not model.parent(lines[1]) or any(len(line.body) != 1 for line in lines):
        return False
    stmts = list(block.body)
    if abs(stmts.index(lines[0]) - stmts.index(lines[1])) != 1:
        return False
    # `h = step(h); h2 = step(h)` reads what the first one bound: another input.
    bound = {n.value for a in assigns for t in a.targets for n in target_names(t.target)}
    return not (_free_names(first.value) & bound)


def _compared(model: FileModel, small: cst.CSTNode) -> Optional[list]:
    """The two values a check compares for equality, or None: `assert a == b`, `assert
    jnp.allclose(a, b)` (under `not`, `jnp.all(...)`, `.all()`), `np.testing.assert_allclose(a,
    b)`, `self.assertEqual(a, b)`."""
    if isinstance(small, cst.Assert):
        test = small.test
        for _ in range(4):
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                test = test.expression
            elif isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) \
                    and test.func.attr.value in ("all", "any") and not test.args:
                test = test.func.value
            elif isinstance(test, cst.Call) and model.qualname(test.func) in TRUTH_REDUCTIONS \
                    and len(test.args) == 1:
                test = test.args[0].value
            else:
                break
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 \
                and isinstance(test.comparisons[0].operator, (cst.Equal, cst.NotEqual)):
            return [test.left, test.comparisons[0].comparator]
        call = test if isinstance(test, cst.Call) and model.qualname(test.func) in EQUALITY_CHECKS else None
    else:
        call = small.value if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) else None
        if call is not None and model.qualname(call.func) not in EQUALITY_CHECKS and not (
                isinstance(call.func, cst.Attribute) and call.func.attr.value in EQUALITY_ASSERT_METHODS):
            call = None
    if call is None:
        return None
    values = [a.value for a in call.args if a.keyword is None and not a.star]
    return values[:2] if len(values) >= 2 else None


def _one_computation(model: FileModel, compared: list, state: dict) -> bool:
    """Both values a check compares for equality are made from the results of calls of one
    function on the same inputs, or on the same inputs rearranged: `out = f(v, x)`, `out_perm
    = f(v, x[:, perm])`, `assert allclose(out[:, perm], out_perm)` (f commutes with a
    permutation), or `total, parts = loss(...)`, `assert allclose(total, parts["a"] + 0.5 *
    parts["b"])` (one result against its parts). Around the calls there is only indexing and
    arithmetic, and no value made from a draw enters other than through the calls' inputs or
    as an index. Such a check asks whether the function keeps an identity, which it does or
    not whatever numbers the inputs hold: draws from one key pass or fail it as independent
    ones would. Comparing f with another function (a reference), or f on other inputs, reads
    the numbers; so does an ordering (`loss < loss0`), which depends on the data."""
    code = model.module.code_for_node
    calls: list = []
    if code(compared[0]) == code(compared[1]) or not all(
            _made_from_calls(model, c, state, calls, 0) for c in compared) or not calls:
        return False
    if len({code(c.func) for c in calls}) != 1:
        return False
    first = calls[0]
    return all(other is first or _same_inputs(model, first, other) for other in calls[1:])


def _made_from_calls(model: FileModel, expr: cst.BaseExpression, state: dict, calls: list, depth: int) -> bool:
    """`expr` is indexing and arithmetic on the results of calls (gathered in `calls`) and on
    values made from no draw; see `_one_computation`."""
    if depth > 8:
        return False
    if isinstance(expr, (cst.BaseNumber, cst.BaseString)):
        return True
    if isinstance(expr, cst.Name):
        if not state.get(expr.value):
            return True  # no draw's numbers: a constant, parameters, an input like any other
        made = _made_by(model, expr)
        if isinstance(made, cst.Call) and not _tuple_target(model, made):
            return _made_from_calls(model, made, state, calls, depth + 1)
        if isinstance(made, cst.Call):
            calls.append(made)  # `total, parts = loss(...)`: a result of the call itself
            return model.qualname(made.func) not in RANDOM_SAMPLERS
        return made is not None and _made_from_calls(model, made, state, calls, depth + 1)
    if isinstance(expr, cst.Attribute):
        return _made_from_calls(model, expr.value, state, calls, depth + 1)
    if isinstance(expr, cst.Subscript):  # any index: a rearrangement or a selection
        return _made_from_calls(model, expr.value, state, calls, depth + 1)
    if isinstance(expr, cst.BinaryOperation):
        return _made_from_calls(model, expr.left, state, calls, depth + 1) \
            and _made_from_calls(model, expr.right, state, calls, depth + 1)
    if isinstance(expr, cst.UnaryOperation):
        return _made_from_calls(model, expr.expression, state, calls, depth + 1)
    if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
        return False
    q = model.qualname(expr.func) or ""
    if q in RANDOM_SAMPLERS or q in RANDOM_SPLITTERS:
        return False  # a draw itself, outside the computation
    func = expr.func
    if q.startswith("jax.numpy."):  # arithmetic: `jnp.sum(out, axis=-1)`
        parts = [a.value for a in expr.args]
    elif isinstance(func, cst.Attribute) and func.attr.value in ARRAY_OWN_METHODS:  # `out.sum(-1)`
        parts = [func.value] + [a.value for a in expr.args]
    else:
        calls.append(expr)
        return True
    return all(_made_from_calls(model, part, state, calls, depth + 1) for part in parts)


def _made_by(model: FileModel, name: cst.Name) -> Optional[cst.BaseExpression]:
    """The value of the one `name = value` (or `name, other = value`) statement that binds
    `name` in its scope, run before the read in straight-line code; else None."""
    bindings = model.scope_of(name).lookup(name.value) or []
    if len(bindings) != 1 or bindings[0].kind != "assign" or not model.straight_line(bindings[0].node) \
            or bindings[0].order > model.order.get(name, 0):
        return None
    node = bindings[0].node
    if not isinstance(node, cst.Assign) or len(node.targets) != 1:
        return None
    target = node.targets[0].target
    if isinstance(target, cst.Name):
        return node.value
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(node.value, cst.Call) and any(
            isinstance(e.value, cst.Name) and e.value.value == name.value for e in target.elements):
        return node.value
    return None


def _tuple_target(model: FileModel, value: cst.Call) -> bool:
    """`value` is unpacked: `total, parts = loss(...)`."""
    assign = model.parent(value)
    return isinstance(assign, cst.Assign) and isinstance(assign.targets[0].target, (cst.Tuple, cst.List))


def _same_inputs(model: FileModel, a: cst.Call, b: cst.Call) -> bool:
    """Two calls with the same arguments, but where one passes another's argument
    rearranged: `f(v, x)` and `f(v, x[:, perm])` (or `f(v, x_perm)`, `x_perm = x[:, perm]`).
    The same text is the same value only where no name in it is bound again between the
    calls (`x = x + 1`)."""
    code = model.module.code_for_node
    if len(a.args) != len(b.args) or not _same_bindings(model, a.func, a, b):
        return False
    for x, y in zip(a.args, b.args):
        if code(x.keyword) != code(y.keyword) if x.keyword or y.keyword else False:
            return False
        if x.star != y.star:
            return False
        if code(x.value) == code(y.value):
            if not _same_bindings(model, x.value, a, b):
                return False
        elif not _rearranged(model, x.value, y.value, a, b) and not _rearranged(model, y.value, x.value, b, a):
            return False
    return True


def _rearranged(model: FileModel, moved: cst.BaseExpression, value: cst.BaseExpression,
                at: cst.Call, other: cst.Call) -> bool:
    """`moved` (passed at `at`) is `value` (passed at `other`) indexed (`x[:, perm, :]`),
    written out or bound to a name."""
    code = model.module.code_for_node
    if isinstance(moved, cst.Name):
        made = _made_by(model, moved)
        moved = made if made is not None else moved
    return isinstance(moved, cst.Subscript) and code(moved.value) == code(value) \
        and _same_bindings(model, value, other, moved)


def _same_bindings(model: FileModel, expr: cst.CSTNode, a: cst.CSTNode, b: cst.CSTNode) -> bool:
    """Every name `expr` reads has the same binding where `a` runs as where `b` runs, in
    straight-line code."""
    scope = model.scope_of(a)
    for name in _free_names(expr):
        bindings = scope.lookup(name) or []
        if any(not model.straight_line(binding.node) for binding in bindings):
            return False
        at = [max((bd for bd in bindings if bd.order < model.order.get(node, 0)),
                  key=lambda bd: bd.order, default=None) for node in (a, b)]
        if at[0] is not at[1]:
            return False
    return True


def _reduced_checks(model: FileModel, test: cst.BaseExpression, leaf, bit_and: bool = False) -> bool:
    """`test` is made of checks `leaf` accepts: `not` / `and` / `or` of them (and `&` where
    `bit_and`), and a truth reduction of one (`x.all()`, `jnp.all(x)`)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _reduced_checks(model, test.expression, leaf, bit_and)
    if isinstance(test, cst.BooleanOperation) or (
            bit_and and isinstance(test, cst.BinaryOperation) and isinstance(test.operator, cst.BitAnd)):
        return _reduced_checks(model, test.left, leaf, bit_and) and _reduced_checks(model, test.right, leaf, bit_and)
    if leaf(model, test):
        return True
    if not isinstance(test, cst.Call):
        return False
    func = test.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("all", "any") and not test.args:
        return _reduced_checks(model, func.value, leaf, bit_and)  # `jnp.isfinite(out).all()`
    return model.qualname(func) in TRUTH_REDUCTIONS and len(test.args) == 1 \
        and _reduced_checks(model, test.args[0].value, leaf, bit_and)


def _finiteness_only(model: FileModel, test: cst.BaseExpression) -> bool:
    """A check of finiteness only: `jnp.all(jnp.isfinite(out))`, `not jnp.isnan(loss).any()`,
    `math.isfinite(float(loss))`, and `not` / `and` / `or` of them."""
    return _reduced_checks(model, test, _finiteness_call)


def _finiteness_call(model: FileModel, test: cst.BaseExpression) -> bool:
    return isinstance(test, cst.Call) and model.qualname(test.func) in FINITENESS_CALLS


_ORDERINGS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


def _bound_only(model: FileModel, test: cst.BaseExpression) -> bool:
    """A check that values lie within fixed bounds: `assert (log_probs <= 0).all()`,
    `jnp.all((actions >= 0) & (actions < n_actions))`, `0.0 <= p <= 1.0`, with `not` /
    `and` / `or` / `&` of them. Like finiteness, a bound the code keeps holds for any
    inputs, so draws from one key pass or fail it as independent ones would."""
    return _reduced_checks(model, test, _fixed_bound_comparison, bit_and=True)


def _fixed_bound_comparison(model: FileModel, test: cst.BaseExpression) -> bool:
    """`lp <= 0`, `0.0 <= p <= 1.0`: orderings of one value against fixed bounds."""
    if not isinstance(test, cst.Comparison) or not test.comparisons \
            or not all(isinstance(c.operator, _ORDERINGS) for c in test.comparisons):
        return False
    operands = [test.left] + [c.comparator for c in test.comparisons]
    return sum(not python_number(model, o) for o in operands) == 1


def _structure_only(model: FileModel, test: cst.BaseExpression) -> bool:
    """A check that reads what values are, not their numbers: `"loss" in metrics` (a
    string among a dict's keys), `out is not None`, `isinstance(metrics, dict)`, and
    `not` / `and` / `or` of them."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _structure_only(model, test.expression)
    if isinstance(test, cst.BooleanOperation):
        return _structure_only(model, test.left) and _structure_only(model, test.right)
    if isinstance(test, cst.Call):
        return model.qualname(test.func) in STRUCTURE_ONLY_CALLS
    if not isinstance(test, cst.Comparison) or not test.comparisons:
        return False
    for target in test.comparisons:
        if isinstance(target.operator, (cst.In, cst.NotIn)):
            if not isinstance(test.left, cst.BaseString) or len(test.comparisons) > 1:
                return False
        elif isinstance(target.operator, (cst.Is, cst.IsNot)):
            if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
                return False
        else:
            return False
    return True


def _plain(expr: cst.BaseExpression) -> bool:
    """Whether `expr` only names values: `losses`, `xs[0]`, `out.loss` (not `table[ids]`,
    a gather), a literal, or `zip` / `enumerate` / `reversed` of such (iterating takes
    one element at a time)."""
    if isinstance(expr, (cst.Name, cst.BaseNumber, cst.BaseString)):
        return True
    if isinstance(expr, cst.Attribute):
        return _plain(expr.value)
    if isinstance(expr, cst.Subscript):
        return _plain(expr.value) and all(
            isinstance(s.slice, cst.Index) and isinstance(s.slice.value, (cst.Integer, cst.SimpleString))
            for s in expr.slice)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(_plain(e.value) for e in expr.elements)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) \
            and expr.func.value in ("zip", "enumerate", "reversed"):
        return all(a.keyword is None and not a.star and _plain(a.value) for a in expr.args)
    return False


def _operands(test: cst.BaseExpression) -> list:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _operands(test.expression)
    if isinstance(test, cst.Comparison):
        return [test.left] + [c.comparator for c in test.comparisons]
    if isinstance(test, cst.Call):
        if isinstance(test.func, cst.Attribute) and isinstance(test.func.value, (cst.Comparison, cst.Call)):
            return _operands(test.func.value)  # `(a == b).all()`
        return [a.value for a in test.args]  # `approx_equal(a, b)`
    return [test]


def _params(params: cst.Parameters) -> list:
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.append(star)
    return out


def _says_deliberate(model: FileModel, use: KeyUse) -> bool:
    """A comment says the key is reused on purpose (`# the same key: identical init`):
    on the statement of the use, just above it or among the lines of its arguments,
    or on the statement that made the key (`# correlated crop between views`); or the
    draw is in a function named as a maker of fake data ("dummy data" is often real
    synthetic data a tutorial trains on)."""
    if _comment_says(model, use.call, _DELIBERATE, inside=True) or _stand_in(model, use):
        return True
    bindings = model.scope_of(use.call).lookup(use.base) or []
    made = [b for b in bindings if b.order < use.order and b.kind == "assign"]
    return bool(made) and _comment_says(model, max(made, key=lambda b: b.order).node, _SHARED, inside=False)


def _stand_in(model: FileModel, use: KeyUse) -> bool:
    function = model.function_of(use.call)
    return function is not None and bool(_STAND_IN.search(function.name))


def _comment_says(model: FileModel, node: cst.CSTNode, says: re.Pattern, inside: bool) -> bool:
    for anc in [node, *model.ancestors(node)]:
        if isinstance(anc, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            comments = [line.comment for line in anc.leading_lines if line.comment is not None]
            trailing = getattr(anc, "trailing_whitespace", None)
            if trailing is not None and trailing.comment is not None:
                comments.append(trailing.comment)
            if inside:
                comments += _comments_in(node)
            return any(says.search(c.value) for c in comments)
    return False


def _comments_in(node: cst.CSTNode) -> list:
    """The comments between a call's parentheses (libcst keeps them in its whitespace)."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Comment):
            out.append(n)
        stack.extend(n.children)
    return out


def _another_name(model: FileModel, previous: KeyUse, use: KeyUse) -> bool:
    """Both draws assigned whole to plain names, and to different ones: the earlier
    value is still held when the later is made (`train_labels`, `eval_labels`)."""
    names = []
    for one in (previous, use):
        parent = model.parent(one.call)
        if not (isinstance(parent, cst.Assign) and parent.value is one.call and len(parent.targets) == 1
                and isinstance(parent.targets[0].target, cst.Name)):
            return False
        names.append(parent.targets[0].target.value)
    return names[0] != names[1]


def _recomputes(model: FileModel, previous: KeyUse, use: KeyUse) -> bool:
    """`x = uniform(key, shape)` run again, word for word, into the same name: it
    makes the value `x` already holds, so no one takes the two for independent draws."""
    if previous.call is use.call:
        return False  # one call passing the key to two parameters (`init(rng, rng)`)
    statements = []
    for one in (previous, use):
        parent = model.parent(one.call)
        if not (isinstance(parent, cst.Assign) and parent.value is one.call):
            return False
        statements.append(parent)
    code = model.module.code_for_node
    return code(statements[0].value) == code(statements[1].value) and \
        [code(t.target) for t in statements[0].targets] == [code(t.target) for t in statements[1].targets]


def _parts_of_one_value(model: FileModel, previous: KeyUse, use: KeyUse) -> bool:
    """`x, y = make(key)[0], make(key)[1]`: the same call on the same values computes one
    value twice (a JAX function gives the same result for the same key), and each call
    keeps a different part of it: other items or attributes, or rows that do not overlap
    (`[:16]`, `[16:32]`). Together they are what `r = make(key); r[0], r[1]` would hold,
    numbers drawn once. The same part twice (`make(key)[0]` and `make(key)[0]`) repeats
    numbers, and stays reported."""
    if not _same_draw(model, previous, use):
        return False
    statement = _statement_of(model, use.call)
    if statement is None or statement is not _statement_of(model, previous.call):
        # In other statements the same text is the same value only if no name in it is
        # bound again between the calls.
        if not all(_same_bindings(model, part, previous.call, use.call)
                   for part in (use.call.func, *(arg.value for arg in use.call.args))):
            return False
    paths = [_parts_taken(model, one.call) for one in (previous, use)]
    for a, b in zip(*paths):
        if a == b:
            continue
        return _disjoint(a, b)
    return False  # one part holds the other (`make(key)` and `make(key)[0]`)


def _statement_of(model: FileModel, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    for anc in model.ancestors(node):
        if isinstance(anc, cst.BaseSmallStatement):
            return anc
    return None


def _parts_taken(model: FileModel, call: cst.Call) -> list:
    """The parts a call's result is narrowed to, outermost first: ("item", 0) for
    `[0]`, ("attr", "x") for `.x`, ("rows", 0, 16) for `[:16]`; ("?",) for any other
    subscript, which ends the path."""
    path = []
    node: cst.CSTNode = call
    while True:
        parent = model.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            path.append(("attr", parent.attr.value))
        elif isinstance(parent, cst.Subscript) and parent.value is node:
            step = _part_of(parent)
            path.append(step)
            if step == ("?",):
                return path
        else:
            return path
        node = parent


def _part_of(subscript: cst.Subscript) -> tuple:
    if len(subscript.slice) != 1:
        return ("?",)
    index = subscript.slice[0].slice
    if isinstance(index, cst.Index):
        if isinstance(index.value, cst.Integer):
            return ("item", int(index.value.value, 0))
        if isinstance(index.value, cst.SimpleString):
            return ("item", index.value.evaluated_value)
        return ("?",)
    if isinstance(index, cst.Slice) and index.step is None:
        bounds = []
        for bound, missing in ((index.lower, 0), (index.upper, None)):
            if bound is None:
                bounds.append(missing)
            elif isinstance(bound, cst.Integer):
                bounds.append(int(bound.value, 0))
            else:
                return ("?",)
        return ("rows", *bounds)
    return ("?",)


def _disjoint(a: tuple, b: tuple) -> bool:
    """Two parts of one value that share no number."""
    if a[0] != b[0] or "?" in (a[0], b[0]):
        return False
    if a[0] in ("item", "attr"):
        return a[1] != b[1]
    (lo_a, hi_a), (lo_b, hi_b) = a[1:], b[1:]
    return (hi_a is not None and hi_a <= lo_b) or (hi_b is not None and hi_b <= lo_a)
