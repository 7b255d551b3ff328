"""The base class of every rule.

A rule is one module under `jaxlint/rules/` with one `Rule` subclass, and one
page under `rules/` whose code blocks are its tests. It reads the file's
`FileModel` and reports nodes; it never parses or resolves names itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator, Optional

import libcst as cst

from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.model import FileModel, children
from jaxlint import jax_api


@dataclass
class Report:
    node: cst.CSTNode
    message: str
    function: Optional[FunctionInfo] = None
    confirm: dict[str, Any] = field(default_factory=dict)
    # A fix (jaxlint.fixes.Fix) the rule computed with the finding, if any.
    fix: Optional[Any] = None


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    severity: ClassVar[str] = "error"
    # Opt-in rules run only when selected explicitly.
    default: ClassVar[bool] = True
    # What confirm mode checks for this rule: "trace-error", "print", "stale-global",
    # "leak", "iterator", "recompile", "overhead", "prng", or None.
    confirm_kind: ClassVar[Optional[str]] = None
    # The JAX exception a bad example raises, when there is one.
    raises: ClassVar[Optional[str]] = None
    # Other exceptions some of its findings name (each finding passes its own `expected`).
    also_raises: ClassVar[tuple[str, ...]] = ()
    # Reports what code does when a trace runs it: a finding in an arm of a branch that no
    # trace of its function takes (`FileModel.traced_here`) is dropped.
    traced_code: ClassVar[bool] = False

    def __init__(self, model: FileModel, settings: Optional[Any] = None):
        self.model = model
        # The run's Settings (target JAX version, ...); None for a bare model.
        self.settings = settings

    @property
    def target_jax_version(self) -> Optional[str]:
        """The JAX release the code must run on (None: the installed or newest known)."""
        return getattr(self.settings, "target_jax_version", None)

    def fix(self, report: Report) -> Optional[Any]:
        """The fix for one of this rule's reports (a jaxlint.fixes.Fix), or None.

        Rules with a fix override this (or set `report.fix`); the edits are
        computed only when a caller asks for them.
        """
        return report.fix

    def check(self) -> Iterator[Report]:  # pragma: no cover - abstract
        raise NotImplementedError

    def report(self, node: cst.CSTNode, message: str, function: Optional[FunctionInfo] = None,
               expected: Optional[str] = None, **confirm: Any) -> Report:
        details: dict[str, Any] = {}
        if self.confirm_kind:
            details["kind"] = self.confirm_kind
            if expected or self.raises:
                details["expected"] = expected or self.raises
        details.update(confirm)
        return Report(node, message, function, details)

    # Helpers shared by rules ------------------------------------------------
    def source(self, node: cst.CSTNode) -> str:
        """The code of a node, for messages (shortened)."""
        text = self.model.module.code_for_node(node).strip()
        text = " ".join(text.split())
        return text if len(text) <= 40 else text[:37] + "..."


class TracedValueRule(Rule):
    """Shared by the rules about Python operations on traced values (JAX2xx)."""

    confirm_kind = "trace-error"
    traced_code = True

    def traced(self, expr: cst.BaseExpression, conversion: Optional[str] = None) -> Optional[FunctionInfo]:
        """The traced function if `expr` is a tracer inside one, and the operation fails.

        The value must be a traced array, or a traced leaf of unknown sort (the
        conversions that use this fail on containers and None too). A known
        container, box or a value that may be static is never reported, nor is code
        on an eager-only path (a `try` that catches the tracer error).
        `conversion` names the operation (`builtins.float`, "tolist", "numpy"), for
        the ones that also fail on the tracers of grad / jvp / vjp.
        """
        model = self.model
        func = model.function_of(expr)
        if func is None or not func.traced or not model.value(expr).maybe_tracer:
            return None
        if not func.abstract and not (
                conversion in jax_api.FAIL_UNDER_DIFFERENTIATION and func.differentiates):
            return None
        if model.eager_guarded(expr):
            return None
        return func

    def traced_leaf(self, expr: cst.BaseExpression) -> Optional[FunctionInfo]:
        """Like `traced`, for truth-testing: `if state:` on an instance of a pytree
        class (or an Optional one) is fine, on an array or a traced Python flag it fails."""
        func = self.traced(expr)
        if func is None or self.model.value(expr).cls is not None:
            return None
        return func

    def static_hint(self, func: FunctionInfo, expr: cst.BaseExpression) -> str:
        """", or mark `n` static" when the traced value is a parameter of a jitted function."""
        names = []
        for node in _names_in(expr):
            name = node.value
            if name in func.param_values and func.param_values[name].traced and name not in names:
                names.append(name)
        jitted = any(c.via in ("decorator", "wrapper") and "jit" in c.transforms
                     for c in func.contexts.values())
        if not names or not jitted:
            return ""
        quoted = ", ".join(f'"{n}"' for n in names)
        return f", or mark {_tick(names)} static with static_argnames=({quoted},)"

    def where(self, func: FunctionInfo) -> str:
        """`under jit`, `in a lax.scan body`, for messages."""
        desc = func.transform_description()
        if desc.startswith(("lax.", "pallas_call")):
            return f"in a {desc} body"
        return f"under {desc}" if desc else "under a JAX transform"


def _tick(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _names_in(expr: cst.CSTNode):
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            yield node
        elif isinstance(node, (cst.Attribute, cst.Subscript)):
            # `state.step` / `x[0]`: marking `state` or `x` static is no fix (arrays
            # and pytrees of arrays are not hashable); only bare parameters are.
            continue
        else:
            stack.extend(children(node))
