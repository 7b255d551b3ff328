"""Guarded fallbacks: code that runs only on some JAX versions.

A removed or renamed JAX API inside a compatibility shim never fails on the
installed JAX: either it is the probe that the shim catches, or it is the
fallback that runs only when the new API is missing. All the removed-API rules
(JAX303, JAX901-JAX909) ask `in_guarded_fallback` before reporting.

The shapes recognised:
- `try: <new or old> except ImportError/AttributeError/Exception: <old or new>`,
  both the body (a probe that is caught) and the handlers (the fallback);
- `with contextlib.suppress(ImportError): ...`;
- any branch of an `if` / conditional expression whose test is a feature or version
  check: `hasattr(jax, "tree")`, `getattr(...)`, `importlib.util.find_spec(...)`,
  `"tree" in dir(jax)`, `jax.__version__ < "0.4.26"`, `version.parse(jax.__version__) >= ...`,
  `if _JAX_VERSION >= (0, 4, 30):`, or a name bound once to such a check
  (`_HAS_TREE = hasattr(jax, "tree")`, then `if _HAS_TREE:`);
- the right operand of `and` / `or` whose left one is such a check;
- the code after `if <check>: return` (or `continue`, `break`, `pytest.skip(...)`,
  `self.skipTest(...)`, `raise unittest.SkipTest(...)`) in the same block (not after a
  plain `raise`: the program fails there just the same);
- a test function or class under a skip decorator whose condition is such a check
  (`@pytest.mark.skipif(jax.__version_info__ < (0, 5), ...)`, `@unittest.skipIf`).
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
GUARD_CALLS = frozenset({"builtins.hasattr", "builtins.getattr", "importlib.util.find_spec",
                         "builtins.dir", "builtins.vars"})
SUPPRESS_CALLS = frozenset({"contextlib.suppress"})
# Decorators that skip a test when their condition holds (a version check: the test runs
# only on the JAX versions it was written for).
SKIP_DECORATORS = frozenset({
    "pytest.mark.skipif", "unittest.skipIf", "unittest.skipUnless",
    "absl.testing.absltest.skipIf", "absl.testing.absltest.skipUnless",
})
# Calls that end a test early, like `return`.
SKIP_CALLS = frozenset({"pytest.skip", "pytest.xfail"})
SKIP_METHODS = frozenset({"skipTest"})


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
        elif isinstance(anc, cst.BooleanOperation) and child is anc.right:
            if feature_test(model, anc.left):
                return True
        elif isinstance(anc, (cst.FunctionDef, cst.ClassDef)) and child is anc.body:
            if any(_skip_decorator(model, d.decorator) for d in anc.decorators):
                return True
        elif isinstance(anc, (cst.IndentedBlock, cst.Module)) and child in anc.body:
            if any(isinstance(stmt, cst.If) and _exits(model, stmt.body) and feature_test(model, stmt.test)
                   for stmt in anc.body[:anc.body.index(child)]):
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


def feature_test(model: FileModel, test: cst.BaseExpression, _seen: frozenset = frozenset()) -> bool:
    """`hasattr(jax, "tree_map")`, `jax.__version__ < "0.4.26"`, `version.parse(...)`, ..."""
    stack = [test]
    while stack:
        cur = stack.pop()
        if isinstance(cur, cst.Call) and model.qualname(cur.func) in GUARD_CALLS:
            return True
        if isinstance(cur, cst.Name) and "version" in cur.value.lower():
            return True
        if isinstance(cur, cst.Name) and cur.value not in _seen:
            value = _bound_once(model, cur)
            if value is not None and feature_test(model, value, _seen | {cur.value}):
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


def _bound_once(model: FileModel, name: cst.Name):
    """The value of `name = value`, the name's only binding, or None."""
    bindings = model.scope_of(name).lookup(name.value)
    if not bindings or len(bindings) != 1 or bindings[0].kind != "assign":
        return None
    node = bindings[0].node
    if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
        return node.value
    return None


def _skip_decorator(model: FileModel, decorator: cst.BaseExpression) -> bool:
    """`@pytest.mark.skipif(<check>, reason=...)`, `@unittest.skipIf(<check>, ...)`."""
    return isinstance(decorator, cst.Call) and model.qualname(decorator.func) in SKIP_DECORATORS \
        and bool(decorator.args) and feature_test(model, decorator.args[0].value)


def _exits(model: FileModel, body: cst.BaseSuite) -> bool:
    """The block ends by leaving without failing: `return`, `continue`, `break`, a skip."""
    if isinstance(body, cst.IndentedBlock):
        if not body.body or not isinstance(body.body[-1], cst.SimpleStatementLine):
            return False
        last = body.body[-1].body[-1]
    else:
        last = body.body[-1] if body.body else None
    if isinstance(last, (cst.Return, cst.Continue, cst.Break)):
        return True
    if isinstance(last, cst.Raise) and last.exc is not None:
        exc = last.exc.func if isinstance(last.exc, cst.Call) else last.exc
        return (model.qualname(exc) or "").rsplit(".", 1)[-1] == "SkipTest"
    if isinstance(last, cst.Expr) and isinstance(last.value, cst.Call):
        func = last.value.func
        return model.qualname(func) in SKIP_CALLS or \
            isinstance(func, cst.Attribute) and func.attr.value in SKIP_METHODS
    return False
