"""How much a block of traced code adds to the program each time it runs.

A Python loop in a traced function is unrolled: the program holds one copy of the body
per iteration. The estimate counts one operation per JAX call and per arithmetic,
comparison or indexing on a traced value, a `jax.random` draw by what its nested
program holds, and a call of a function of this file by its own body (a few levels
deep). It is a lower bound on the jaxpr's length: Python arithmetic on static values
adds nothing.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.callees import called_function
from jaxlint.engine.model import children
from jaxlint.jax_api import RANDOM_DRAW_OPERATIONS, array_module_function

_DEPTH = 3
_ARITHMETIC = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.Subscript)


def traced_operations(model, body: cst.CSTNode, depth: int = 0) -> int:
    """The operations one run of `body` traces into the program."""
    total = 0
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Call):
            q = model.qualname(node.func) or ""
            callee = None if q.startswith("jax.") else called_function(model, node)
            if q.startswith("jax.random."):
                total += RANDOM_DRAW_OPERATIONS
            elif callee is not None:
                if not callee.is_lambda and depth < _DEPTH:
                    total += traced_operations(model, callee.node.body, depth + 1)
            elif array_module_function(q) or model.value(node).traced:
                total += 1
        elif isinstance(node, _ARITHMETIC) and model.value(node).traced:
            total += 1
        stack.extend(children(node))
    return total
