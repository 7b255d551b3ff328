"""Guarded fallbacks: code that runs only on some JAX versions.

A removed or renamed JAX API inside a compatibility shim never fails on the
installed JAX: either it is the probe that the shim catches, or it is the
fallback that runs only when the new API is missing. All the removed-API rules
(JAX303, JAX901-JAX908) ask `in_guarded_fallback` before reporting.

The shapes recognised:
- `try: <new or old> except ImportError/AttributeError/Exception: <old or new>`,
  both the body (a probe that is caught) and the handlers (the fallback);
- `with contextlib.suppress(ImportError): ...`;
- any branch of an `if` / conditional expression whose test is a feature or version
  check: `hasattr(jax, "tree")`, `getattr(...)`, `importlib.util.find_spec(...)`,
  `jax.__version__ < "0.4.26"`, `version.parse(jax.__version__) >= ...`,
  `if _JAX_VERSION >= (0, 4, 30):`.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.model import FileModel, children

# Handlers that make a removed name a deliberate compatibility fallback.
GUARD_EXCEPTIONS = frozenset({
    "builtins.ImportError", "builtins.ModuleNotFoundError", "builtins.AttributeError",
    "builtins.Exception", "builtins.BaseException",
})
# Calls in an `if` test that ask what the installed JAX has.
GUARD_CALLS = frozenset({"builtins.hasattr", "builtins.getattr", "importlib.util.find_spec"})
SUPPRESS_CALLS = frozenset({"contextlib.suppress"})


def in_guarded_fallback(model: FileModel, node: cst.CSTNode) -> bool:
    """Whether `node` runs only on the JAX versions where it works."""
    child = node
    for anc in model.ancestors(node):
        if isinstance(anc, (cst.Try, cst.TryStar)):
            if (child is anc.body or child in anc.handlers) and any(
                    h.type is None or catches_import_error(model, h.type) for h in anc.handlers):
                return True
        elif isinstance(anc, (cst.If, cst.IfExp, cst.While)) and child is not anc.test:
            if feature_test(model, anc.test):
                return True
        elif isinstance(anc, (cst.With,)) and child is anc.body:
            if any(isinstance(item.item, cst.Call) and model.qualname(item.item.func) in SUPPRESS_CALLS
                   and any(catches_import_error(model, a.value) for a in item.item.args)
                   for item in anc.items):
                return True
        child = anc
    return False


def catches_import_error(model: FileModel, expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Tuple):
        return any(catches_import_error(model, el.value) for el in expr.elements)
    return model.qualname(expr) in GUARD_EXCEPTIONS


def feature_test(model: FileModel, test: cst.BaseExpression) -> bool:
    """`hasattr(jax, "tree_map")`, `jax.__version__ < "0.4.26"`, `version.parse(...)`, ..."""
    stack = [test]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Call) and model.qualname(cur.func) in GUARD_CALLS:
            return True
        if isinstance(cur, cst.Name) and "version" in cur.value.lower():
            return True
        if isinstance(cur, cst.Attribute) and "version" in cur.attr.value.lower():
            return True
        stack.extend(children(cur))
    return False


TYPE_CHECKING_NAMES = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})


def under_type_checking(model: FileModel, node: cst.CSTNode) -> bool:
    """Whether `node` is in the body of `if TYPE_CHECKING:`, which only type checkers read:
    Python never runs it."""
    child = node
    for anc in model.ancestors(node):
        if isinstance(anc, cst.If) and child is anc.body:
            test = anc.test
            if model.qualname(test) in TYPE_CHECKING_NAMES or \
                    isinstance(test, cst.Name) and test.value == "TYPE_CHECKING":
                return True
        child = anc
    return False
